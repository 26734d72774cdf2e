//! Prometheus metrics. One process-wide recorder: the `metrics` macros write to a global,
//! so several servers in one process (the integration tests) share it; series are
//! cumulative counters and histograms, which is what Prometheus expects anyway.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Counter, Histogram, counter, histogram};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// Latency buckets in seconds: warm requests take microseconds, generations seconds.
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// How often histogram samples are folded into their buckets.
pub const UPKEEP_INTERVAL: Duration = Duration::from_secs(1);

/// The recorder's handle, installing the recorder (and its upkeep) on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(SECONDS_BUCKETS)
            .expect("the bucket list is not empty")
            .build_recorder();
        let handle = recorder.handle();
        // Fails only when another recorder is installed; ours then stays empty, which is
        // visible on /metrics rather than fatal.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed; /metrics will be empty");
        }
        start_upkeep(handle.clone());
        handle
    })
}

/// A histogram keeps every sample it records until upkeep (or a scrape of `/metrics`)
/// folds them into its buckets, and `build_recorder` leaves upkeep to us: without it an
/// unscraped server held about 16 bytes per request for good (over 100 MB after a few
/// minutes of warm traffic). A thread, not a task: the recorder outlives any runtime.
fn start_upkeep(handle: PrometheusHandle) {
    let started = std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_INTERVAL);
                handle.run_upkeep();
            }
        });
    if let Err(error) = started {
        tracing::error!(%error, "no metrics upkeep thread: histogram samples pile up until /metrics is scraped");
    }
}

/// Records every routed request by route template (never the raw path: seeds would make
/// the series unbounded), method and status.
pub async fn track_requests(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let method = method_label(request.method());
    let response = next.run(request).await;
    let labels = [
        ("route", route),
        ("method", method.to_string()),
        ("status", response.status().as_u16().to_string()),
    ];
    counter!("levelforge_http_requests_total", &labels).increment(1);
    histogram!("levelforge_http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    response
}

/// The `method` label: one of the methods HTTP defines, else `other`. A client may send any
/// token as a method, and each distinct label value is a series held for good.
pub fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

/// The request series of one route, method and status, looked up on first use only:
/// recording a request is then two atomic updates, where [`track_requests`] builds and
/// hashes a label set per request. Same names and labels, so the same series on `/metrics`.
pub struct RequestSeries {
    labels: [(&'static str, String); 3],
    handles: OnceLock<(Counter, Histogram)>,
}

impl RequestSeries {
    pub fn new(route: &'static str, method: &'static str, status: u16) -> RequestSeries {
        RequestSeries {
            labels: [
                ("route", route.to_string()),
                ("method", method.to_string()),
                ("status", status.to_string()),
            ],
            handles: OnceLock::new(),
        }
    }

    /// Counts one request that started at `started`.
    pub fn record(&self, started: Instant) {
        let (count, duration) = self.handles.get_or_init(|| {
            handle(); // handles taken before the recorder is installed would record nothing
            (
                counter!("levelforge_http_requests_total", &self.labels),
                histogram!("levelforge_http_request_duration_seconds", &self.labels),
            )
        });
        count.increment(1);
        duration.record(started.elapsed().as_secs_f64());
    }
}

/// Outcome of one generation run by the level pipeline.
#[derive(Clone, Copy, Debug)]
pub enum Outcome {
    Accepted,
    OverBudget,
    Overloaded,
    Failed,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::OverBudget => "over_budget",
            Outcome::Overloaded => "overloaded",
            Outcome::Failed => "failed",
        }
    }
}

pub fn generation(game: &'static str, tier: &'static str, outcome: Outcome, took: Duration) {
    let labels = [
        ("game", game),
        ("tier", tier),
        ("outcome", outcome.as_str()),
    ];
    counter!("levelforge_generations_total", &labels).increment(1);
    histogram!("levelforge_generation_duration_seconds", &labels).record(took.as_secs_f64());
}

/// Candidates tried and solver states expanded by an accepted generation.
pub fn generation_work(game: &'static str, tier: &'static str, attempts: u64, states: u64) {
    let labels = [("game", game), ("tier", tier)];
    counter!("levelforge_generation_attempts_total", &labels).increment(attempts);
    counter!("levelforge_solver_states_total", &labels).increment(states);
}

/// A level request answered from memory (`hit`) or by running the loader (`miss`).
pub fn cache(hit: bool) {
    // Looked up once: warm hits are the hottest path there is.
    static SERIES: OnceLock<[Counter; 2]> = OnceLock::new();
    let [hits, misses] = SERIES.get_or_init(|| {
        handle();
        ["hit", "miss"]
            .map(|result| counter!("levelforge_cache_requests_total", "result" => result))
    });
    if hit { hits } else { misses }.increment(1);
}

/// Time a job waited for a generation slot; `admitted` false when it gave up (503).
pub fn slot_wait(waited: Duration, admitted: bool) {
    histogram!("levelforge_generation_slot_wait_seconds").record(waited.as_secs_f64());
    if !admitted {
        counter!("levelforge_generation_slot_rejections_total").increment(1);
    }
}

/// A failed database operation (`op`: level_read, level_write, play_write, ping).
pub fn db_error(op: &'static str) {
    counter!("levelforge_db_errors_total", "op" => op).increment(1);
}

/// A request refused by the overload layers (`reason`: shed, timeout, rate_limited,
/// body_timeout, connections_per_client).
pub fn refused(reason: &'static str) {
    counter!("levelforge_http_refused_total", "reason" => reason).increment(1);
}
