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
//! the answer is the handler's choice (`compression::choose`, which `compression::respond`
//! makes for the handler: Content-Type, ETag per coding, Vary, Cache-Control, 304), it
//! takes an in-flight slot of the same overload guard, it counts the same request and
//! cache series, and a panic sends the request to the router, whose catch-panic layer
//! answers it.
//!
//! Whatever is not plainly such a request goes to the router unchanged: a browser's
//! cross-origin request when CORS is configured (the router's CORS layer answers it),
//! another method, a body, a percent-encoded or otherwise unusual path or query, input
//! the handler would refuse, a level not in memory (cold, or to be generated), all in-flight slots taken (the
//! guard then sheds or queues as configured), and debug logging of requests turned on.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::http::{HeaderValue, Method, Response, StatusCode, header};

use super::head::Head;
use super::overload::Overload;
use super::params;
use super::routes::bench_bytes as bench;
use super::routes::levels::{JSON, level_address};
use super::state::AppState;
use crate::compression::{Chosen, HeaderTemplates, Variants, choose};
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

    /// The answer to `request`, a request head without a body, if it is a warm one;
    /// `None` sends it to the router.
    pub(super) async fn answer(&self, request: &impl Head) -> Option<WarmAnswer> {
        let started = Instant::now();
        if !plain_get(request) {
            return None;
        }
        let path = request.path();
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

    async fn level(
        &self,
        request: &impl Head,
        difficulty_and_seed: &str,
        started: Instant,
    ) -> Option<WarmAnswer> {
        let (difficulty, seed) = difficulty_and_seed.split_once('/')?;
        if [difficulty, seed]
            .iter()
            .any(|segment| segment.contains(['/', '%']))
        {
            return None;
        }
        let cors = !self.state.cors_origins.is_empty();
        // A browser's cross-origin request gets its CORS headers from the router.
        if cors && request.has("origin") {
            return None;
        }
        let game = game_parameter(request.query())?;
        let (_, key) = level_address(&self.state, difficulty, seed, game).ok()?;
        let _slot = self.overload.try_slot()?;
        let level = self.state.levels.cached(&key).await?;
        crate::metrics::cache(true);
        // With CORS, a cache in front must not hand this answer to a browser of another
        // origin.
        respond_and_count(&self.level, started, || {
            WarmAnswer::new(request, &level.body, &JSON, cors)
        })
    }

    /// `{slug}/v/{version}` or `{slug}/v/{version}/{n}` of a version in memory, without a
    /// query.
    async fn collection(
        &self,
        request: &impl Head,
        rest: &str,
        started: Instant,
    ) -> Option<WarmAnswer> {
        if request.query().is_some() || rest.contains('%') {
            return None;
        }
        let cors = !self.state.cors_origins.is_empty();
        if cors && request.has("origin") {
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
        respond_and_count(series, started, || {
            WarmAnswer::new(request, body, &JSON, cors)
        })
    }

    fn bytes(&self, request: &impl Head, size: &str, started: Instant) -> Option<WarmAnswer> {
        if !self.state.bench_routes || request.query().is_some() {
            return None;
        }
        let size = size.parse().ok().filter(|&n| n <= bench::MAX_BYTES)?;
        let _slot = self.overload.try_slot()?;
        respond_and_count(&self.bytes, started, || {
            WarmAnswer::new(request, &bench::body(size), &JSON, false)
        })
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

/// A GET, and requests are not being logged one by one (the router's trace layer does that
/// at debug level).
fn plain_get(request: &impl Head) -> bool {
    request.method() == Method::GET
        && !tracing::enabled!(target: "tower_http::trace::on_request", tracing::Level::DEBUG)
}

/// `respond()`, counted in `series` (200 or 304). A panic sends the request to the router,
/// whose catch-panic layer answers it (500) when its handler panics the same way.
fn respond_and_count(
    series: &[RequestSeries; 2],
    started: Instant,
    respond: impl FnOnce() -> WarmAnswer,
) -> Option<WarmAnswer> {
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(respond)).ok()?;
    let not_modified = answer.chosen.status == StatusCode::NOT_MODIFIED;
    series[usize::from(not_modified)].record(started);
    Some(answer)
}

/// A warm answer: the handler's choice of representation (`compression::respond`), and
/// with CORS configured, `Vary: Origin`.
pub struct WarmAnswer {
    chosen: Chosen<'static>,
    vary_origin: bool,
}

impl WarmAnswer {
    fn new(
        request: &impl Head,
        variants: &Variants,
        templates: &'static HeaderTemplates,
        vary_origin: bool,
    ) -> WarmAnswer {
        let accept_encoding = request.values("accept-encoding");
        let if_none_match = request.values("if-none-match");
        WarmAnswer {
            chosen: choose(accept_encoding, if_none_match, variants, templates),
            vary_origin,
        }
    }

    pub fn status(&self) -> StatusCode {
        self.chosen.status
    }

    pub fn body(&self) -> &Bytes {
        &self.chosen.body
    }

    /// As the router's handler answers.
    pub fn into_response(self) -> Response<Bytes> {
        let mut response = self.chosen.into_response();
        if self.vary_origin {
            response
                .headers_mut()
                .append(header::VARY, HeaderValue::from_static("origin"));
        }
        response
    }

    /// The header lines as HTTP/1.1 writes them, in the order of [`Self::into_response`]'s.
    pub fn write_header_lines(&self, out: &mut Vec<u8>) {
        self.chosen.write_header_lines(out);
        if self.vary_origin {
            out.extend_from_slice(b"vary: origin\r\n");
        }
    }
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
