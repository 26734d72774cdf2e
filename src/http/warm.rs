//! The warm path: `GET /levels/{difficulty}/{seed}` for a stored level already in memory,
//! a published collection version's manifest and levels (`GET /collections/{slug}/v/
//! {version}` and `.../{n}`) once in memory, and the bench baseline
//! `GET /bench/bytes/{size}`, answered before the router.
//!
//! Such an answer is a lookup and a choice among bytes held in memory, but through the
//! router it paid for everything around it: a tracing span with the URI formatted into it,
//! the route services cloned and boxed layer by layer, the app state cloned, the headers
//! copied, the path and query deserialized into owned strings, metrics labels built and
//! hashed, the body collected. Here it pays for none of that and keeps every guarantee:
//! the answer comes from the same [`respond`] as the handler's (Content-Type, ETag per
//! coding, Vary, Cache-Control, 304), it takes an in-flight slot of the same overload
//! guard, and it counts the same request and cache series.
//!
//! Whatever is not plainly such a request goes to the router unchanged: a browser's
//! cross-origin request when CORS is configured (the router's CORS layer answers it),
//! another method, a body, a percent-encoded or otherwise unusual path or query, input
//! the handler would refuse, a level not in memory (cold, or to be generated), all in-flight slots taken (the
//! guard then sheds or queues as configured), and debug logging of requests turned on.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use hyper::body::{Body as _, Incoming};

use super::overload::Overload;
use super::params;
use super::problem::ApiError;
use super::routes::bench_bytes as bench;
use super::routes::levels::{JSON, level_address, level_answer};
use super::state::AppState;
use crate::compression::respond;
use crate::metrics::RequestSeries;

const LEVEL_ROUTE: &str = "/levels/{difficulty}/{seed}";
const BYTES_ROUTE: &str = "/bench/bytes/{size}";
const MANIFEST_ROUTE: &str = "/collections/{slug}/v/{version}";
const ENTRY_ROUTE: &str = "/collections/{slug}/v/{version}/{n}";

/// What the warm path answers, and the series it counts into.
pub(super) struct WarmPath {
    state: AppState,
    overload: Arc<Overload>,
    /// Series of the level route by status: 200, 304.
    level: [RequestSeries; 2],
    bytes: [RequestSeries; 2],
    manifest: [RequestSeries; 2],
    entry: [RequestSeries; 2],
}

/// The two statuses a warm answer has.
fn series(route: &'static str) -> [RequestSeries; 2] {
    [200, 304].map(|status| RequestSeries::new(route, "GET", status))
}

impl WarmPath {
    pub(super) fn new(state: AppState, overload: Arc<Overload>) -> WarmPath {
        WarmPath {
            state,
            overload,
            level: series(LEVEL_ROUTE),
            bytes: series(BYTES_ROUTE),
            manifest: series(MANIFEST_ROUTE),
            entry: series(ENTRY_ROUTE),
        }
    }

    /// The answer to `request` if it is a warm one; `None` sends it to the router.
    pub(super) async fn answer(&self, request: &Request<Incoming>) -> Option<Response> {
        let started = Instant::now();
        if !self.plain_get(request) {
            return None;
        }
        let path = request.uri().path();
        if let Some(rest) = path.strip_prefix("/levels/") {
            self.level(request, rest, started).await
        } else if let Some(size) = path.strip_prefix("/bench/bytes/") {
            self.bytes(request, size, started)
        } else if let Some(rest) = path.strip_prefix("/collections/") {
            self.collection(request, rest, started).await
        } else {
            None
        }
    }

    /// A GET without a body, and requests are not being logged one by one (the router's
    /// trace layer does that at debug level).
    fn plain_get(&self, request: &Request<Incoming>) -> bool {
        request.method() == axum::http::Method::GET
            && request.body().is_end_stream()
            && !tracing::enabled!(target: "tower_http::trace::on_request", tracing::Level::DEBUG)
    }

    async fn level(
        &self,
        request: &Request<Incoming>,
        difficulty_and_seed: &str,
        started: Instant,
    ) -> Option<Response> {
        let (difficulty, seed) = difficulty_and_seed.split_once('/')?;
        if [difficulty, seed]
            .iter()
            .any(|segment| segment.contains(['/', '%']))
        {
            return None;
        }
        let cors = !self.state.cors_origins.is_empty();
        // A browser's cross-origin request gets its CORS headers from the router.
        if cors && request.headers().contains_key(axum::http::header::ORIGIN) {
            return None;
        }
        let game = game_parameter(request.uri().query())?;
        let (_, key) = level_address(&self.state, difficulty, seed, game).ok()?;
        let _slot = self.overload.try_slot()?;
        let level = self.state.levels.cached(&key).await?;
        crate::metrics::cache(true);
        Some(respond_and_count(&self.level, started, || {
            let mut response = level_answer(request.headers(), &level);
            if cors {
                // A cache in front must not hand this answer to a browser of another origin.
                response.headers_mut().append(
                    axum::http::header::VARY,
                    axum::http::HeaderValue::from_static("origin"),
                );
            }
            response
        }))
    }

    /// `{slug}/v/{version}` or `{slug}/v/{version}/{n}` of a version in memory, without a
    /// query.
    async fn collection(
        &self,
        request: &Request<Incoming>,
        rest: &str,
        started: Instant,
    ) -> Option<Response> {
        if request.uri().query().is_some() || rest.contains('%') {
            return None;
        }
        let cors = !self.state.cors_origins.is_empty();
        if cors && request.headers().contains_key(axum::http::header::ORIGIN) {
            return None;
        }
        let (slug, rest) = rest.split_once("/v/")?;
        let (version, n) = match rest.split_once('/') {
            Some((version, n)) => (version, Some(n)),
            None => (rest, None),
        };
        let version = params::canonical::<u32>(version).ok()?;
        let collections = &self.state.collections;
        let (manifest, level, series);
        let body = match n {
            None => {
                manifest = collections.cached_manifest(slug, version).await?;
                series = &self.manifest;
                &*manifest
            }
            Some(n) => {
                let n = params::canonical::<u32>(n).ok()?;
                let entries = collections.cached_entries(slug, version).await?;
                let entry = entries.get(usize::try_from(n).ok()?.checked_sub(1)?)?;
                let (_, key) = crate::service::collections::entry_key(entry)?;
                level = self.state.levels.cached(&key).await?;
                series = &self.entry;
                &level.body
            }
        };
        let _slot = self.overload.try_slot()?;
        Some(respond_and_count(series, started, || {
            let mut response = respond(request.headers(), body, &JSON);
            if cors {
                response.headers_mut().append(
                    axum::http::header::VARY,
                    axum::http::HeaderValue::from_static("origin"),
                );
            }
            response
        }))
    }

    fn bytes(&self, request: &Request<Incoming>, size: &str, started: Instant) -> Option<Response> {
        if !self.state.bench_routes || request.uri().query().is_some() {
            return None;
        }
        let size = size.parse().ok().filter(|&n| n <= bench::MAX_BYTES)?;
        let _slot = self.overload.try_slot()?;
        Some(respond_and_count(&self.bytes, started, || {
            respond(request.headers(), &bench::body(size), &JSON)
        }))
    }
}

/// The `game` of a query that holds nothing else, spelled plainly; `Some(None)` without a
/// query. `None` for anything the router's query parsing should see.
fn game_parameter(query: Option<&str>) -> Option<Option<&str>> {
    let Some(query) = query else {
        return Some(None);
    };
    let name = query.strip_prefix("game=")?;
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    plain.then_some(Some(name))
}

/// `respond()`, counted in `series` (200 or 304); with the router's guard against a panic:
/// then 500, as its catch-panic layer answers, and as there no request series counts it.
fn respond_and_count(
    series: &[RequestSeries; 2],
    started: Instant,
    respond: impl FnOnce() -> Response,
) -> Response {
    let Ok(response) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(respond)) else {
        return ApiError::Internal("the handler panicked".into()).into_response();
    };
    let not_modified = response.status() == axum::http::StatusCode::NOT_MODIFIED;
    series[usize::from(not_modified)].record(started);
    response
}

#[cfg(test)]
mod tests {
    use super::game_parameter;

    #[test]
    fn only_a_plain_game_parameter_is_taken() {
        assert_eq!(game_parameter(None), Some(None));
        assert_eq!(game_parameter(Some("game=fruit")), Some(Some("fruit")));
        assert_eq!(
            game_parameter(Some("game=tetropica")),
            Some(Some("tetropica"))
        );
        for other in [
            "",
            "game=",
            "game=fr%75it",
            "game=fruit&game=hashi",
            "game=fruit&solution=true",
            "solution=true",
            "game=a+b",
            "Game=fruit",
        ] {
            assert_eq!(game_parameter(Some(other)), None, "{other}");
        }
    }
}
