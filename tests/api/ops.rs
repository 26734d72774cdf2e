//! Operations: metrics, overload, header timeouts, database faults and graceful shutdown,
//! against the real server. The metrics recorder is process-wide, so the tests that count
//! generations run the binary in a process of its own (`TestApp::spawn_process`).

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::helpers::{Proxy, TestApp, TestDatabase, client, read_answer};

/// Sum of the samples of `name` whose labels include every pair of `labels`.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.rsplit_once(' '))
        .filter(|(series, _)| {
            let (series_name, series_labels) = series.split_once('{').unwrap_or((series, ""));
            series_name == name
                && labels
                    .iter()
                    .all(|(k, v)| series_labels.contains(&format!("{k}=\"{v}\"")))
        })
        .map(|(_, value)| value.parse::<f64>().unwrap())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_expose_requests_generations_cache_and_slots() {
    let server = TestApp::spawn_process(&[]).await;
    let level = "/levels/easy/11?game=tetropica";
    let before = server.metrics().await;
    for _ in 0..3 {
        assert_eq!(server.get(level).await.status, 200);
    }
    assert_eq!(server.get("/levels/easy/x").await.status, 400);
    let after = server.metrics().await;
    let increase = |name: &str, labels: &[(&str, &str)]| {
        sample(&after, name, labels) - sample(&before, name, labels)
    };
    let route = ("route", "/levels/{difficulty}/{seed}");
    let ok = [route, ("method", "GET"), ("status", "200")];
    assert!(
        increase("levelforge_http_requests_total", &ok) >= 3.0,
        "{after}"
    );
    let bad = [route, ("status", "400")];
    assert!(increase("levelforge_http_requests_total", &bad) >= 1.0);
    assert!(increase("levelforge_http_request_duration_seconds_count", &ok) >= 3.0);
    let all_buckets = [route, ("status", "200"), ("le", "+Inf")];
    assert!(
        increase(
            "levelforge_http_request_duration_seconds_bucket",
            &all_buckets
        ) >= 3.0
    );
    let tier = [("game", "tetropica"), ("tier", "easy")];
    let accepted = [tier[0], tier[1], ("outcome", "accepted")];
    assert_eq!(increase("levelforge_generations_total", &accepted), 1.0);
    assert!(increase("levelforge_generation_attempts_total", &tier) >= 1.0);
    assert!(increase("levelforge_solver_states_total", &tier) >= 1.0);
    assert!(increase("levelforge_cache_requests_total", &[("result", "hit")]) >= 2.0);
    assert!(increase("levelforge_cache_requests_total", &[("result", "miss")]) >= 1.0);
    assert!(sample(&after, "levelforge_generation_slot_wait_seconds_count", &[]) >= 1.0);
    assert!(after.contains("# TYPE levelforge_generation_duration_seconds histogram"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_for_one_cold_key_generate_it_once() {
    let server = TestApp::spawn_process(&["--gen-queue-wait-ms", "60000"]).await;
    let accepted = [
        ("game", "skiddy"),
        ("tier", "medium"),
        ("outcome", "accepted"),
    ];
    let before = sample(
        &server.metrics().await,
        "levelforge_generations_total",
        &accepted,
    );
    let requests: Vec<_> = (0..16)
        .map(|_| {
            let url = server.url("/levels/medium/4242?game=skiddy");
            tokio::spawn(async move {
                let response = client().get(url).send().await.unwrap();
                assert_eq!(response.status(), 200);
                response.text().await.unwrap()
            })
        })
        .collect();
    let mut bodies = Vec::new();
    for request in requests {
        bodies.push(request.await.unwrap());
    }
    assert!(bodies.iter().all(|b| b == &bodies[0]));
    let after = sample(
        &server.metrics().await,
        "levelforge_generations_total",
        &accepted,
    );
    assert_eq!(
        after - before,
        1.0,
        "16 concurrent requests, one generation"
    );
    server.stop().await;
}

/// Milliseconds of one GET, and its status.
async fn timed_get(http: &reqwest::Client, url: String) -> (StatusCode, f64) {
    let started = Instant::now();
    let response = http.get(url).send().await.unwrap();
    let status = response.status();
    let _ = response.bytes().await.unwrap();
    (status, started.elapsed().as_secs_f64() * 1000.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_cold_requests_does_not_starve_warm_ones() {
    // A short queue wait, so that some cold requests are refused with 503. All clients
    // share one address here: no per-client connection cap or budget.
    let unlimited = [
        "--gen-concurrency",
        "1",
        "--gen-queue-wait-ms",
        "20",
        "--rate-limit-cold-per-min",
        "0",
        "--http-max-connections-per-client",
        "0",
    ];
    let server = TestApp::spawn_with(&unlimited).await;
    let warm = server.url("/levels/easy/1");
    assert_eq!(client().get(&warm).send().await.unwrap().status(), 200);
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let cold: Vec<_> = (0..200u64)
        .map(|i| {
            // Tetropica's expert levels are cheap to generate, so this measures admission
            // (slots, queue wait, 503s) rather than how a 2-core machine shares its CPU
            // with fruit's heavier searches.
            let seed = base.wrapping_add(i);
            let url = server.url(&format!("/levels/expert/{seed}?game=tetropica"));
            tokio::spawn(async move {
                // Arrivals over 200 ms: 200 simultaneous connects would overflow the
                // listen backlog and measure the kernel's 1 s SYN retry instead.
                tokio::time::sleep(Duration::from_millis(i)).await;
                let response = client().get(url).send().await.unwrap();
                let status = response.status();
                if status == StatusCode::SERVICE_UNAVAILABLE {
                    assert!(response.headers().contains_key("retry-after"));
                    assert_eq!(
                        response.headers()["content-type"],
                        "application/problem+json"
                    );
                }
                status
            })
        })
        .collect();
    // Warm requests and probes spread over the flood, over kept-alive connections as a
    // mobile client's would be.
    let warm_client = client();
    let warm_requests: Vec<_> = (0..200u64)
        .map(|i| {
            let url = if i % 4 == 0 {
                server.url("/healthz")
            } else {
                warm.clone()
            };
            let http = warm_client.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(i * 5)).await;
                timed_get(&http, url).await
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for request in warm_requests {
        let (status, ms) = request.await.unwrap();
        assert_eq!(status, 200);
        latencies.push(ms);
    }
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for request in cold {
        let status = request.await.unwrap();
        assert!(
            status == 200 || status == StatusCode::SERVICE_UNAVAILABLE,
            "cold request got {status}"
        );
        *statuses.entry(status.as_u16()).or_default() += 1;
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: usize| latencies[latencies.len() * p / 100 - 1];
    let (p50, p95, max) = (percentile(50), percentile(95), percentile(100));
    eprintln!("warm p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms; cold {statuses:?}");
    // p95, not p99: the suite runs this beside other tests on 2 cores, and one or two
    // stalls of the test process itself (seen: 229 ms) are not the server queueing warm
    // requests behind cold ones. That would show as most of them slow, or one waiting
    // out the flood.
    assert!(p95 < 200.0, "warm p95 {p95:.1} ms under the flood");
    assert!(
        max < 2000.0,
        "a warm request waited {max:.1} ms under the flood"
    );
    server.stop().await;
}

/// Starts `POST .../check` on a raw connection and sends only part of its body, so the
/// request stays in flight until [`finish_slow_check`].
async fn start_slow_check(server: &TestApp) -> TcpStream {
    use tokio::io::AsyncWriteExt;
    let address = server.address().to_string();
    let mut slow = TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /levels/easy/1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        SLOW_BODY.len()
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    slow.write_all(&SLOW_BODY[..4]).await.unwrap();
    slow
}

const SLOW_BODY: &[u8] = br#"{"moves": "U"}"#;

/// Sends the rest of the body and returns the whole HTTP answer.
async fn finish_slow_check(mut slow: TcpStream) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // The server may have answered already (deadline) and closed: ignore write errors.
    let _ = slow.write_all(&SLOW_BODY[4..]).await;
    let mut answer = String::new();
    let _ = slow.read_to_string(&mut answer).await;
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_sheds_with_503_problems() {
    // One request in flight at a time, shedding. A verification that runs into its 1.5 s
    // budget holds the one slot; meanwhile every other request is shed at once. (A body
    // still arriving holds no slot: it is read first.)
    let server = TestApp::spawn_with(&[
        "--http-max-in-flight",
        "1",
        "--verify-max-states",
        "100000000",
        "--gen-budget-ms",
        "1500",
    ])
    .await;
    let expensive: Value =
        serde_json::from_str(include_str!("reliability/fruit_expensive.json")).unwrap();
    let warm_level = "/levels/easy/1?game=fruit";
    assert_eq!(server.get(warm_level).await.status, 200);
    let verify = tokio::spawn(
        client()
            .post(server.url("/verify"))
            .bearer_auth(&server.designer_key)
            .json(&expensive)
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A warm level, answered before the router when a slot is free, is shed too.
    for path in ["/healthz", warm_level] {
        let shed = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert!(shed.headers().contains_key("retry-after"));
        assert_eq!(shed.headers()["content-type"], "application/problem+json");
    }
    assert_eq!(verify.await.unwrap().unwrap().status(), 200);
    assert_eq!(server.get(warm_level).await.status, 200, "slot freed");
    assert_eq!(server.get("/healthz").await.status, 200, "slot freed");
    let text = server.metrics().await;
    assert!(
        sample(
            &text,
            "levelforge_http_refused_total",
            &[("reason", "shed")]
        ) >= 1.0
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_the_http_deadline_gets_503() {
    let server = TestApp::spawn_with(&["--http-request-timeout-ms", "300"]).await;
    let slow = start_slow_check(&server).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let answer = finish_slow_check(slow).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let answer = answer.to_ascii_lowercase();
    assert!(answer.contains("retry-after:"), "{answer}");
    assert!(answer.contains("content-type: application/problem+json"));
    server.stop().await;
}

fn patient_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "test-postgres"),
    ignore = "needs PostgreSQL: scripts/test.sh sets it up"
)]
async fn postgres_outage_serves_levels_refuses_plays_and_recovers() {
    let database = TestDatabase::postgres().await;
    let direct = database.url.clone();
    let (server_part, name) = direct.rsplit_once('/').unwrap();
    let upstream = server_part
        .rsplit_once('@')
        .map_or(server_part, |(_, host)| host)
        .to_string();
    let proxy = Proxy::start(upstream).await;
    let proxied = format!("postgres://postgres@127.0.0.1:{}/{name}", proxy.port);
    let server = TestApp::on_url(&database, &proxied, &[]).await;
    let http = patient_client();
    let warm = server.url("/levels/easy/5");
    let level: Value = http.get(&warm).send().await.unwrap().json().await.unwrap();
    assert_eq!(server.get("/readyz").await.status, 200);

    proxy.cut().await;
    // Under the pool's 3 s acquire timeout, with room for a busy machine.
    let fail_fast = Duration::from_millis(2500);
    let started = Instant::now();
    assert_eq!(http.get(&warm).send().await.unwrap().status(), 200);
    assert!(started.elapsed() < fail_fast, "warm from memory");
    let started = Instant::now();
    let cold = http.get(server.url("/levels/easy/6")).send().await.unwrap();
    assert_eq!(cold.status(), 200, "generated without the database");
    // The first call waits out the pool's 3 s acquire timeout; the write after it fails
    // fast, since the store knows the database is gone.
    assert!(started.elapsed() < Duration::from_secs(5), "no hang");
    let started = Instant::now();
    let cold = http.get(server.url("/levels/easy/7")).send().await.unwrap();
    assert_eq!(cold.status(), 200, "generated without the database");
    let ready = http.get(server.url("/readyz")).send().await.unwrap();
    assert!(
        started.elapsed() < fail_fast,
        "fails fast once the database is known to be gone"
    );
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(ready.headers().contains_key("retry-after"));
    let play = json!({"solved": true, "moves": level["solution"]});
    let refused = http
        .post(server.url("/levels/easy/5/plays"))
        .json(&play)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(
        refused.headers()["content-type"],
        "application/problem+json"
    );

    let text = server.metrics().await;
    assert!(sample(&text, "levelforge_db_errors_total", &[("op", "play_write")]) >= 1.0);
    assert!(sample(&text, "levelforge_db_errors_total", &[("op", "ping")]) >= 1.0);
    proxy.restore();
    let deadline = Instant::now() + Duration::from_secs(15);
    while server.get("/readyz").await.status != 200 {
        assert!(Instant::now() < deadline, "no recovery without a restart");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stored = http
        .post(server.url("/levels/easy/5/plays"))
        .json(&play)
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), StatusCode::CREATED);
    assert_eq!(server.get("/levels/easy/6").await.status, 200);
    assert_eq!(server.get("/levels/easy/7").await.status, 200);
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&direct).await.unwrap();
    let levels: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM levels")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        levels.0, 3,
        "the levels served during the outage are stored now"
    );
    let plays: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM plays")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        plays.0, 1,
        "the refused play was not stored behind the client's back"
    );
    drop(conn);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_finishes_in_flight_generations() {
    let server =
        TestApp::spawn_with(&["--gen-concurrency", "1", "--gen-queue-wait-ms", "60000"]).await;
    let requests: Vec<_> = (0..8u64)
        .map(|i| {
            let url = server.url(&format!("/levels/hard/{}?game=tetropica", 7000 + i));
            tokio::spawn(async move { client().get(url).send().await.unwrap().status() })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let base = server.base.clone();
    server.stop().await;
    for request in requests {
        assert_eq!(request.await.unwrap(), 200, "in-flight request finished");
    }
    assert!(
        client()
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_err(),
        "no longer accepting"
    );
}

async fn cold_get(server: &TestApp, seed: u64, forwarded: Option<&str>) -> reqwest::Response {
    let mut request = client().get(server.url(&format!("/levels/easy/{seed}?game=hopper")));
    if let Some(ip) = forwarded {
        request = request.header("X-Forwarded-For", format!("203.0.113.9, {ip}"));
    }
    request.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cold_generation_is_rate_limited_per_client() {
    let limits = [
        "--rate-limit-cold-per-min",
        "1",
        "--rate-limit-cold-burst",
        "2",
        "--trust-forwarded",
        "true",
    ];
    let server = TestApp::spawn_with(&limits).await;
    assert_eq!(cold_get(&server, 1, None).await.status(), 200);
    assert_eq!(cold_get(&server, 2, None).await.status(), 200);
    let limited = cold_get(&server, 3, None).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=61).contains(&retry_after), "{retry_after}");
    assert_eq!(
        limited.headers()["content-type"],
        "application/problem+json"
    );
    let problem: Value = limited.json().await.unwrap();
    assert_eq!(problem["status"], 429);
    // Warm levels are never limited.
    assert_eq!(cold_get(&server, 1, None).await.status(), 200);
    // Behind a trusted proxy, the last X-Forwarded-For entry is the client.
    assert_eq!(cold_get(&server, 4, Some("10.1.1.1")).await.status(), 200);
    assert_eq!(cold_get(&server, 5, Some("10.1.1.1")).await.status(), 200);
    let limited = cold_get(&server, 6, Some("10.1.1.1")).await.status();
    assert_eq!(limited, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(cold_get(&server, 6, Some("10.2.2.2")).await.status(), 200);
    server.stop().await;
}

/// Waits (at most 5 s) until the server closes `reader`'s connection; the time from
/// `started` until then.
async fn time_until_closed(
    mut reader: impl tokio::io::AsyncRead + Unpin,
    started: Instant,
) -> Duration {
    use tokio::io::AsyncReadExt;
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), reader.read_to_end(&mut rest))
        .await
        .expect("the server keeps the connection open")
        .ok(); // a reset is a close too
    assert!(rest.is_empty(), "closed without an answer, got {rest:?}");
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_header_clients_are_cut_at_the_header_read_timeout() {
    use tokio::io::AsyncWriteExt;
    let server = TestApp::spawn_with(&["--http-header-read-timeout-ms", "300"]).await;
    let address = server.address().to_string();
    // Slowloris: a partial request line, then one header line every 50 ms, never the end.
    let connected = Instant::now();
    let (reader, mut writer) = TcpStream::connect(&address).await.unwrap().into_split();
    writer
        .write_all(b"GET /levels/easy/1 HTTP/1.1\r\n")
        .await
        .unwrap();
    let trickle = tokio::spawn(async move {
        for i in 0.. {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let line = format!("X-Slow-{i}: x\r\n");
            if writer.write_all(line.as_bytes()).await.is_err() {
                return i;
            }
        }
        unreachable!()
    });
    // A client that connects and never sends a byte.
    let silent = TcpStream::connect(&address).await.unwrap();
    let silent = tokio::spawn(time_until_closed(silent, Instant::now()));
    // Meanwhile, requests on other connections are answered.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.get("/healthz").await.status, 200);
    assert_eq!(server.get("/levels/easy/1").await.status, 200);

    let slowloris = time_until_closed(reader, connected).await;
    let silent = silent.await.unwrap();
    eprintln!("slowloris cut after {slowloris:?}, silent client after {silent:?}");
    for cut in [slowloris, silent] {
        assert!(
            cut >= Duration::from_millis(150) && cut < Duration::from_secs(2),
            "{cut:?}"
        );
    }
    trickle.abort();
    assert_eq!(server.get("/healthz").await.status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_alive_connections_serve_many_requests_then_idle_out() {
    use tokio::io::AsyncWriteExt;
    let server = TestApp::spawn_with(&["--http-header-read-timeout-ms", "300"]).await;
    let address = server.address().to_string();
    // A connection routed through hyper, then one whose requests are all warm (answered
    // before hyper): each serves requests apart by less than the timeout, and waiting for
    // the next request head counts against the same deadline.
    assert_eq!(server.get("/levels/easy/1").await.status, 200);
    for (path, ending) in [("/healthz", r#"{"status":"ok"}"#), ("/levels/easy/1", "}")] {
        let stream = TcpStream::connect(&address).await.unwrap();
        let mut connection = tokio::io::BufReader::new(stream);
        for _ in 0..3 {
            let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
            connection
                .get_mut()
                .write_all(request.as_bytes())
                .await
                .unwrap();
            let answer = read_answer(&mut connection).await;
            assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
            assert!(answer.ends_with(ending), "{answer}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let idle = time_until_closed(connection, Instant::now()).await;
        assert!(
            idle >= Duration::from_millis(150) && idle < Duration::from_secs(2),
            "{path}: {idle:?}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_is_not_held_open_by_a_slow_header_client() {
    use tokio::io::AsyncWriteExt;
    let server = TestApp::spawn_with(&["--http-header-read-timeout-ms", "300"]).await;
    let address = server.address().to_string();
    let mut slow = TcpStream::connect(&address).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), server.stop())
        .await
        .expect("graceful shutdown waits for the slow client forever");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    drop(slow);
}

/// The series on a `/metrics` text: one per sample line.
fn series_count(text: &str) -> usize {
    text.lines().filter(|line| !line.starts_with('#')).count()
}

/// Anything a client makes up (a method, a path, a query, a header value) lands in a label
/// value from a fixed set, so thousands of distinct requests add no series.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_methods_paths_and_headers_add_no_metric_series() {
    let server = TestApp::spawn_process(&["--rate-limit-cold-per-min", "0"]).await;
    let routes = [
        "/levels/hard/1?game=fruit",
        "/players/me",
        "/stats",
        "/levels/easy/2/plays",
    ];
    let made_up = |i: usize| {
        let method = format!("XQ{i}Z");
        reqwest::Method::from_bytes(method.as_bytes()).unwrap()
    };
    let http = client();
    let send = |i: usize| {
        let http = http.clone();
        let route = routes[i % routes.len()];
        let url = match i / routes.len() % 3 {
            0 => server.url(route),
            1 => server.url(&format!(
                "{route}{}x={i}",
                if route.contains('?') { '&' } else { '?' }
            )),
            _ => server.url(&format!("/no/such/{i}")),
        };
        async move {
            http.request(made_up(i), &url)
                .header("authorization", format!("Bearer lfp_{i}"))
                .header(
                    "x-forwarded-for",
                    format!("10.{}.{}.1", i / 256 % 256, i % 256),
                )
                .header("accept-encoding", format!("x-{i}"))
                .header("idempotency-key", format!("key-{i}"))
                .send()
                .await
                .expect("the server answers")
                .status()
        }
    };
    // Every label value these requests can produce exists after one round.
    for i in 0..routes.len() * 3 {
        send(i).await;
    }
    let before = series_count(&server.metrics().await);
    for batch in (100..3100).collect::<Vec<_>>().chunks(50) {
        let answers = futures_util::future::join_all(batch.iter().map(|&i| send(i))).await;
        assert!(answers.iter().all(|s| s.is_client_error()), "{answers:?}");
    }
    let after = server.metrics().await;
    assert_eq!(series_count(&after), before, "{after}");
    assert!(!after.contains("XQ"), "a made-up method became a label");
    server.stop().await;
}
