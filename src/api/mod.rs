//! The HTTP surface (openapi.yaml, docs/http.md). Handlers translate between HTTP and the level service; they
//! know no game's rules.

mod bench;
mod browse;
mod daily;
mod dashboard;
mod designers;
mod levels;
mod ops;
pub mod params;
pub mod problem;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use levelforge_games::Game;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use crate::config::HttpLimits;
use crate::levels::LevelService;
use problem::ApiError;

/// Everything a handler needs.
#[derive(Clone)]
pub struct AppState {
    pub levels: LevelService,
    pub default_game: &'static dyn Game,
    /// States one `POST /verify` may expand.
    pub verify_max_states: u64,
    /// The overload layers' settings.
    pub limits: HttpLimits,
    /// Whether `X-Forwarded-For` names the client (behind a trusted proxy only).
    pub trust_forwarded: bool,
    /// Whether `GET /bench/bytes/{size}` is mounted (load tests only).
    pub bench_routes: bool,
}

/// Bodies above this size get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

pub fn router(state: AppState) -> Router {
    let limits = state.limits.clone();
    let routes = Router::new()
        .route("/", get(dashboard::index))
        .route("/dashboard/app.js", get(dashboard::script))
        .route("/dashboard/style.css", get(dashboard::style))
        .route("/levels", get(browse::browse))
        .route("/levels/daily", get(daily::daily))
        .route("/levels/{difficulty}", get(daily::pack))
        .route("/levels/{difficulty}/{seed}", get(levels::level))
        .route(
            "/levels/{difficulty}/{seed}/preview.svg",
            get(levels::preview),
        )
        .route("/levels/{difficulty}/{seed}/check", post(levels::check))
        .route("/levels/{difficulty}/{seed}/plays", post(levels::play))
        .route("/verify", post(designers::verify))
        .route("/games", get(designers::games))
        .route("/stats", get(browse::stats))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics));
    // Off by default: a load-test baseline, not part of the API.
    let routes = if state.bench_routes {
        routes.route("/bench/bytes/{size}", get(bench::bytes))
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
    overload_layers(routes, &limits)
        .layer(
            TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
                tracing::info_span!("request", method = %request.method(), uri = %request.uri())
            }),
        )
        .with_state(state)
}

/// Global in-flight limit (shedding or queueing), then the whole-request deadline, both
/// answering 503 problem+json with `Retry-After`. Written as one middleware over a shared
/// semaphore: `Router::layer` wraps every route separately, and tower's load-shed and
/// concurrency layers queued instead of shedding there.
fn overload_layers(routes: Router<AppState>, limits: &HttpLimits) -> Router<AppState> {
    let guard = Arc::new(Overload {
        slots: (limits.max_in_flight > 0)
            .then(|| Arc::new(tokio::sync::Semaphore::new(limits.max_in_flight))),
        load_shed: limits.load_shed,
        timeout: limits.request_timeout,
    });
    routes.layer(axum::middleware::from_fn(move |request, next| {
        let guard = guard.clone();
        async move { guard.run(request, next).await }
    }))
}

struct Overload {
    slots: Option<Arc<tokio::sync::Semaphore>>,
    load_shed: bool,
    timeout: Duration,
}

impl Overload {
    async fn run(&self, request: axum::extract::Request, next: axum::middleware::Next) -> Response {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let _permit = match &self.slots {
            None => None,
            Some(slots) if self.load_shed => match slots.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => return refused("shed"),
            },
            Some(slots) => {
                match tokio::time::timeout_at(deadline, slots.clone().acquire_owned()).await {
                    Ok(Ok(permit)) => Some(permit),
                    _ => return refused("timeout"),
                }
            }
        };
        tokio::time::timeout_at(deadline, next.run(request))
            .await
            .unwrap_or_else(|_| refused("timeout"))
    }
}

/// A request the overload guard turns away, as a problem.
fn refused(reason: &'static str) -> Response {
    crate::metrics::refused(reason);
    let (detail, retry_after_s) = if reason == "shed" {
        (
            "the server is handling too many requests; try again shortly",
            1,
        )
    } else {
        ("the request ran past the server's deadline", 5)
    };
    ApiError::Unavailable {
        detail: detail.into(),
        retry_after_s,
    }
    .into_response()
}

/// How long a graceful shutdown waits for in-flight requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);
