//! The HTTP surface (openapi.yaml, docs/http.md). Handlers translate between HTTP and the level service; they
//! know no game's rules.

pub mod auth;
mod bench;
mod browse;
mod collections;
mod daily;
mod dashboard;
mod designers;
mod levels;
mod ops;
pub mod params;
mod players;
pub mod problem;
pub mod session;
mod warm;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use levelforge_games::Game;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use crate::compression;
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
    /// Per-client limits on `POST /verify` and on plays; `None`: unlimited.
    pub verify_limiter: Option<Arc<crate::ratelimit::RateLimiter>>,
    pub play_limiter: Option<Arc<crate::ratelimit::RateLimiter>>,
    pub hint_limiter: Option<Arc<crate::ratelimit::RateLimiter>>,
    pub players_limiter: Option<Arc<crate::ratelimit::RateLimiter>>,
    /// New players per network (IPv4 /24, IPv6 /64), beside the per-client limit.
    pub players_network_limiter: Option<Arc<crate::ratelimit::RateLimiter>>,
    /// One `next` at a time per player (per replica).
    pub next_locks: Arc<crate::next::PlayerLocks>,
    /// Published collection versions in memory.
    pub collections: crate::collections::CollectionService,
    /// Resolves player tokens, keys and sessions.
    pub auth: Arc<crate::auth::Authenticator>,
    pub session: session::SessionSettings,
    /// Origins allowed to call the game routes from a browser; empty: none.
    pub cors_origins: Vec<String>,
    /// The overload layers' settings.
    pub limits: HttpLimits,
    /// Whether `X-Forwarded-For` names the client (behind a trusted proxy only).
    pub trust_forwarded: bool,
    /// Whether `GET /bench/bytes/{size}` is mounted (load tests only).
    pub bench_routes: bool,
}

/// Bodies above this size get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The whole HTTP service: warm immutable answers first ([`warm`]), every other request
/// through the router and its layers.
#[derive(Clone)]
pub struct App {
    router: Router,
    warm: Arc<warm::WarmPath>,
}

impl App {
    pub fn new(state: AppState) -> App {
        let overload = Arc::new(Overload::new(&state.limits));
        App {
            warm: Arc::new(warm::WarmPath::new(state.clone(), overload.clone())),
            router: router(state, overload),
        }
    }

    /// Answers one request from `peer`.
    pub async fn call(
        self,
        request: Request<hyper::body::Incoming>,
        peer: SocketAddr,
    ) -> Result<Response, std::convert::Infallible> {
        if let Err(refusal) = one_host(&request).and_then(|()| one_credential(&request)) {
            return Ok(refusal.into_response());
        }
        if let Some(response) = self.warm.answer(&request).await {
            return Ok(response);
        }
        let mut request = request;
        request.extensions_mut().insert(ConnectInfo(peer));
        self.router.oneshot(request).await
    }
}

/// RFC 9112 §3.2: 400 for an HTTP/1.1 request without `Host`, and for any request with
/// more than one or with one that is not `host[:port]` (empty is allowed). hyper checks
/// none of it.
fn one_host<B>(request: &Request<B>) -> Result<(), ApiError> {
    let mut hosts = request.headers().get_all(axum::http::header::HOST).iter();
    let refuse = |why: &str| Err(ApiError::BadRequest(format!("the request {why}")));
    match (hosts.next(), hosts.next()) {
        (None, _) if request.version() == axum::http::Version::HTTP_11 => {
            refuse("has no `Host` header, which HTTP/1.1 requires")
        }
        (None, _) => Ok(()),
        (Some(_), Some(_)) => refuse("has more than one `Host` header"),
        (Some(host), None) if host.is_empty() || is_authority(host.as_bytes()) => Ok(()),
        (Some(_), None) => refuse("has a `Host` header that is not host[:port]"),
    }
}

/// 400 for a request with more than one `Authorization` or `Idempotency-Key`: which one
/// counts would be a guess (a valid token followed by a forged one, two keys for one play).
fn one_credential<B>(request: &Request<B>) -> Result<(), ApiError> {
    use axum::http::{HeaderName, header};
    const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
    for (header, name) in [
        (header::AUTHORIZATION, "Authorization"),
        (IDEMPOTENCY_KEY, "Idempotency-Key"),
    ] {
        if request.headers().get_all(header).iter().nth(1).is_some() {
            return Err(ApiError::BadRequest(format!(
                "the request has more than one `{name}` header"
            )));
        }
    }
    Ok(())
}

/// `host[:port]` (RFC 3986: a name, an IPv4 address or a bracketed IP literal, and a
/// decimal port), checked without allocating: it runs before every warm answer.
fn is_authority(text: &[u8]) -> bool {
    let name_byte = |b: &u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(b);
    let (host_ok, rest) = match text.strip_prefix(b"[") {
        Some(literal) => match literal.iter().position(|&b| b == b']') {
            Some(end) => (
                end > 0 && literal[..end].iter().all(|b| name_byte(b) || *b == b':'),
                &literal[end + 1..],
            ),
            None => (false, &[][..]),
        },
        None => {
            let end = text.iter().position(|&b| b == b':').unwrap_or(text.len());
            (end > 0 && text[..end].iter().all(name_byte), &text[end..])
        }
    };
    let port_ok = match rest.split_first() {
        None => true,
        Some((b':', port)) => port.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    };
    host_ok && port_ok
}

fn router(state: AppState, overload: Arc<Overload>) -> Router {
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
        .route("/levels/{difficulty}/{seed}/plays", post(levels::play))
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
    match cors_layer(&state.cors_origins) {
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

/// tower-http's CORS layer for `origins`; `None` when there are none.
fn cors_layer(origins: &[String]) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{HeaderName, HeaderValue, Method, header};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let origins: Vec<HeaderValue> = origins
        .iter()
        .filter(|origin| !origin.is_empty())
        .filter_map(|origin| HeaderValue::from_str(origin).ok())
        .collect();
    if origins.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::IF_NONE_MATCH,
                HeaderName::from_static("idempotency-key"),
            ])
            .expose_headers([
                header::ETAG,
                header::RETRY_AFTER,
                header::LOCATION,
                HeaderName::from_static("idempotent-replayed"),
            ])
            .max_age(Duration::from_secs(3600)),
    )
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

/// Reads the whole body first (bounded in size and time, and outside the in-flight slot,
/// so that slow uploads cannot starve other requests), then the global in-flight limit
/// (shedding or queueing), then the whole-request deadline, all answering problem+json.
/// Written as one middleware over a shared semaphore: `Router::layer` wraps every route
/// separately, and tower's load-shed and concurrency layers queued instead of shedding
/// there.
fn overload_layers(routes: Router<AppState>, guard: Arc<Overload>) -> Router<AppState> {
    routes.layer(axum::middleware::from_fn(move |request, next| {
        let guard = guard.clone();
        async move { guard.run(request, next).await }
    }))
}

struct Overload {
    slots: Option<Arc<tokio::sync::Semaphore>>,
    load_shed: bool,
    timeout: Duration,
    body_timeout: Duration,
}

impl Overload {
    fn new(limits: &HttpLimits) -> Overload {
        Overload {
            slots: (limits.max_in_flight > 0)
                .then(|| Arc::new(tokio::sync::Semaphore::new(limits.max_in_flight))),
            load_shed: limits.load_shed,
            timeout: limits.request_timeout,
            body_timeout: limits.body_read_timeout,
        }
    }

    /// An in-flight slot if one is free now (`Some(None)` when there is no limit); `None`
    /// when all are taken, and the full path decides between shedding and queueing.
    fn try_slot(&self) -> Option<Option<tokio::sync::SemaphorePermit<'_>>> {
        match &self.slots {
            None => Some(None),
            Some(slots) => slots.try_acquire().ok().map(Some),
        }
    }

    async fn run(&self, request: axum::extract::Request, next: axum::middleware::Next) -> Response {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let request = match self.read_body(request, deadline).await {
            Ok(request) => request,
            Err(refusal) => return refusal,
        };
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

    /// The request with its body in memory: 413 at once when the declared length is over
    /// [`BODY_LIMIT`], 408 when the body does not arrive within the body read timeout.
    /// Both close the connection, since the rest of the body is never read.
    async fn read_body(
        &self,
        request: axum::extract::Request,
        deadline: tokio::time::Instant,
    ) -> Result<axum::extract::Request, Response> {
        use http_body_util::{BodyExt, LengthLimitError, Limited};
        let declared = request
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > BODY_LIMIT as u64) {
            return Err(closing(too_large()));
        }
        let (parts, body) = request.into_parts();
        let body_deadline = deadline.min(tokio::time::Instant::now() + self.body_timeout);
        let read = Limited::new(body, BODY_LIMIT).collect();
        let bytes = match tokio::time::timeout_at(body_deadline, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) if error.is::<LengthLimitError>() => return Err(closing(too_large())),
            Ok(Err(error)) => {
                return Err(closing(
                    ApiError::BadRequest(format!("the body could not be read: {error}"))
                        .into_response(),
                ));
            }
            Err(_) if body_deadline == deadline => return Err(closing(refused("timeout"))),
            Err(_) => {
                crate::metrics::refused("body_timeout");
                return Err(closing(ApiError::RequestTimeout.into_response()));
            }
        };
        Ok(axum::extract::Request::from_parts(
            parts,
            axum::body::Body::from(bytes),
        ))
    }
}

fn too_large() -> Response {
    ApiError::PayloadTooLarge(format!("the body is larger than {BODY_LIMIT} bytes")).into_response()
}

/// `response`, telling the client (and hyper) that the connection closes after it.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
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

/// Takes one unit of `client`'s budget on `limiter` (none: unlimited), or 429.
pub(crate) fn rate_limit(
    limiter: Option<&crate::ratelimit::RateLimiter>,
    client: Option<std::net::IpAddr>,
    what: &str,
) -> Result<(), ApiError> {
    let (Some(limiter), Some(client)) = (limiter, client) else {
        return Ok(());
    };
    limiter.check(client).map_err(|wait| {
        crate::metrics::refused("rate_limited");
        ApiError::TooManyRequests {
            detail: format!("too many {what}; next one in {wait:?}"),
            retry_after_s: u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::is_authority;

    #[test]
    fn a_host_is_a_name_or_address_and_an_optional_port() {
        for host in [
            "localhost",
            "a.example:8080",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:8080",
            "x:",
        ] {
            assert!(is_authority(host.as_bytes()), "{host}");
        }
        for host in [
            "user@a", "a/b", "a b", ":80", "a:8o", "[::1", "[]", "[::1]x", "a:1:2",
        ] {
            assert!(!is_authority(host.as_bytes()), "{host}");
        }
    }
}
