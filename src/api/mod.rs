//! The HTTP surface (api.md). Handlers translate between HTTP and the level service; they
//! know no game's rules.

mod browse;
mod daily;
mod designers;
mod levels;
mod ops;
pub mod params;
pub mod problem;

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Request;
use axum::routing::{get, post};
use levelforge_games::Game;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use crate::levels::LevelService;
use problem::ApiError;

/// Everything a handler needs.
#[derive(Clone)]
pub struct AppState {
    pub levels: LevelService,
    pub default_game: &'static dyn Game,
    /// States one `POST /verify` may expand.
    pub verify_max_states: u64,
}

/// Bodies above this size get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/levels", get(browse::browse))
        .route("/levels/daily", get(daily::daily))
        .route("/levels/{difficulty}", get(daily::pack))
        .route("/levels/{difficulty}/{seed}", get(levels::level))
        .route("/levels/{difficulty}/{seed}/preview.svg", get(levels::preview))
        .route("/levels/{difficulty}/{seed}/check", post(levels::check))
        .route("/levels/{difficulty}/{seed}/plays", post(levels::play))
        .route("/verify", post(designers::verify))
        .route("/games", get(designers::games))
        .route("/stats", get(browse::stats))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .fallback(|| async { ApiError::NotFound("no such route".into()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_| {
            use axum::response::IntoResponse;
            ApiError::Internal("the handler panicked".into()).into_response()
        }))
        .layer(
            TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
                tracing::info_span!("request", method = %request.method(), uri = %request.uri())
            }),
        )
        .with_state(state)
}

/// How long a graceful shutdown waits for in-flight requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);
