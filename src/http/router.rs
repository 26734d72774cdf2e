//! The routes of the public listener and of the ops listener, and the layers around them.

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Request;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use super::overload::{BODY_LIMIT, Overload, overload_layers};
use super::problem::ApiError;
use super::routes::{
    bench_bytes, browse, collections, daily, dashboard, designers, levels, ops, players, plays,
    session,
};
use super::state::AppState;
use super::{auth, cors};
use crate::compression;

pub fn router(state: AppState, overload: Arc<Overload>) -> Router {
    let routes = Router::new()
        .merge(game_routes(&state))
        .merge(designer_routes(&state))
        .route("/", get(dashboard::index))
        .route("/dashboard/app.js", get(dashboard::script))
        .route("/dashboard/level.js", get(dashboard::level_script))
        .route("/dashboard/style.css", get(dashboard::style))
        .route(
            "/session",
            get(session::current)
                .post(session::open)
                .delete(session::close),
        )
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz));
    // Off by default: a load-test baseline, not part of the API.
    let routes = if state.bench_routes {
        routes.route("/bench/bytes/{size}", get(bench_bytes::bytes))
    } else {
        routes
    };
    let routes = routes
        // A route layer sees the matched route template.
        .route_layer(axum::middleware::from_fn(crate::metrics::track_requests))
        .fallback(|| async { ApiError::NotFound("no such route".into()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("the handler panicked".into()).into_response()
        }));
    overload_layers(routes, overload)
        .layer(
            TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
                tracing::info_span!("request", method = %request.method(), uri = %request.uri())
            }),
        )
        .with_state(state)
}

/// What game clients call, from any origin in `CORS_ALLOWED_ORIGINS`: levels, previews,
/// packs, the daily level, checks, hints, plays, players, and the list of games.
fn game_routes(state: &AppState) -> Router<AppState> {
    let routes = Router::new()
        .route(
            "/games",
            get(designers::games).layer(compression::dynamic()),
        )
        .route("/levels/daily", get(daily::daily))
        .route("/levels/{difficulty}", get(daily::pack))
        .route("/levels/{difficulty}/{seed}", get(levels::level))
        .route(
            "/levels/{difficulty}/{seed}/preview.svg",
            get(levels::preview),
        )
        .route("/levels/{difficulty}/{seed}/check", post(levels::check))
        .route("/levels/{difficulty}/{seed}/plays", post(plays::play))
        .route("/levels/{difficulty}/{seed}/hint", post(levels::hint))
        .route("/players", post(players::create))
        .route("/players/me", get(players::me).delete(players::erase))
        .route("/players/me/next", get(players::next))
        .route("/collections", get(collections::list))
        .route("/collections/{slug}", get(collections::latest))
        .route("/collections/{slug}/v/{version}", get(collections::version))
        .route(
            "/collections/{slug}/v/{version}/{n}",
            get(collections::entry),
        )
        .route("/players/me/collections/{slug}", get(collections::progress))
        // Set before the CORS layer, so that it wraps the 405 too and answers preflights.
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed });
    match cors::cors_layer(&state.cors_origins) {
        Some(cors) => routes.layer(cors),
        None => routes,
    }
}

/// The designer routes: a designer or admin key (or the dashboard's session) first, and
/// never cross-origin (no CORS layer).
fn designer_routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/levels", get(browse::browse).layer(compression::dynamic()))
        .route("/stats", get(browse::stats).layer(compression::dynamic()))
        .route("/verify", post(designers::verify))
        .route("/preview.svg", post(designers::preview))
        .route("/difficulty.svg", get(designers::difficulty_chart))
        .route(
            "/stats/collections/{slug}",
            get(collections::stats).layer(compression::dynamic()),
        )
        .route(
            "/stats/collections/{slug}/curve.svg",
            get(collections::curve),
        )
        // Merged with the public GET of the same path: these methods alone need the key.
        .route(
            "/collections/{slug}",
            axum::routing::put(collections::publish).delete(collections::unpublish),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_designer,
        ))
}

/// The ops listener's routes (`ADMIN_BIND`): metrics and probes, with no connection caps.
pub fn admin_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(ops::metrics))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .fallback(|| async { ApiError::NotFound("no such route".into()) })
        .with_state(state)
}
