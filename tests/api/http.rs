//! The HTTP contract (openapi.yaml) against the real server.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDatabase, client, read_answer};

#[tokio::test]
async fn level_is_cacheable_forever_and_304s() {
    let app = TestApp::spawn().await;
    let first = app.get("/levels/easy/42").await;
    assert_eq!(first.status, 200);
    assert_eq!(
        first.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    let etag = first.header("etag").to_string();
    assert!(etag.starts_with('"'), "strong ETag: {etag}");
    let level = first.json();
    assert_eq!(
        (
            level["game"].as_str(),
            level["difficulty"].as_str(),
            level["seed"].as_u64()
        ),
        (Some("fruit"), Some("easy"), Some(42)),
        "the default game"
    );
    let par = level["par"].as_u64().unwrap();
    assert!((2..=4).contains(&par), "easy fruit par window: {par}");

    let again = client()
        .get(app.url("/levels/easy/42"))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    app.stop().await;
}

#[tokio::test]
async fn same_key_same_bytes_after_a_restart() {
    let database = TestDatabase::sqlite();
    let app = TestApp::on(&database, &[]).await;
    let first = app.get("/levels/hard/7?game=fruit").await.body;
    app.stop().await;
    let app = TestApp::on(&database, &[]).await;
    let second = app.get("/levels/hard/7?game=fruit").await.body;
    assert_eq!(first, second, "served as stored, timings included");
    app.stop().await;
}

#[tokio::test]
async fn every_tier_serves_a_level_in_its_window() {
    let app = TestApp::spawn().await;
    let games = app.get_json("/games").await;
    let fruit = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "fruit")
        .unwrap()
        .clone();
    for tier in fruit["tiers"].as_array().unwrap() {
        let difficulty = tier["difficulty"].as_str().unwrap();
        let level = app.get_level("fruit", difficulty, 3).await;
        let par = level["par"].as_u64().unwrap();
        assert!(
            par >= tier["par_min"].as_u64().unwrap(),
            "{difficulty}: {par}"
        );
        if let Some(max) = tier["par_max"].as_u64() {
            assert!(par <= max, "{difficulty}: {par}");
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn games_list_the_pieces_an_editor_places() {
    let app = TestApp::spawn().await;
    let games = app.get_json("/games").await;
    for game in games["games"].as_array().unwrap() {
        let palette = game["palette"].as_array().unwrap();
        assert!(palette.len() >= 2, "{game}");
        for piece in palette {
            assert_eq!(
                piece["char"].as_str().unwrap().chars().count(),
                1,
                "{piece}"
            );
            assert!(!piece["name"].as_str().unwrap().is_empty(), "{piece}");
        }
    }
    let fruit = &games["games"][0];
    assert_eq!(fruit["name"], "fruit");
    assert_eq!(fruit["palette"][0], json!({"char": ".", "name": "floor"}));
    assert!(
        !fruit["palette"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["char"] == "A"),
        "an anteater needs its facing too: not a one-click piece"
    );
    app.stop().await;
}

#[tokio::test]
async fn check_replays_moves_and_awards_the_par_medal() {
    let app = TestApp::spawn().await;
    let level = app.get_level("fruit", "medium", 5).await;
    let won = app
        .post_check("fruit", "medium", 5, &level["solution"])
        .await;
    assert_eq!(won.status, 200);
    let outcome = won.json();
    assert_eq!(outcome["status"], "won");
    assert_eq!(outcome["moves_used"], level["par"]);
    assert_eq!(outcome["medals"], json!(["par"]));

    let outcome = app
        .post_check("fruit", "medium", 5, &json!(""))
        .await
        .json();
    assert_eq!(
        (outcome["status"].as_str(), outcome["moves_used"].as_u64()),
        (Some("unfinished"), Some(0))
    );

    let bad = app.post_check("fruit", "medium", 5, &json!("UXD")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.is_problem());
    assert_eq!(bad.json()["rule"], "moves.letters");
    app.stop().await;
}

#[tokio::test]
async fn plays_are_replayed_and_stored() {
    let app = TestApp::spawn().await;
    let level = app.get_level("fruit", "easy", 9).await;
    let body = json!({"solved": true, "moves": level["solution"], "time_ms": 5400});
    let stored = app.post_play("fruit", "easy", 9, &body).await;
    assert_eq!(stored.status, StatusCode::CREATED);
    let play = stored.json();
    assert_eq!(
        (play["status"].as_str(), play["verified"].as_bool()),
        (Some("won"), Some(true))
    );
    assert!(play["id"].as_i64().is_some());

    // A claim the replay does not support is stored, and marked unverified.
    let play = app
        .post_play("fruit", "easy", 9, &json!({"solved": true, "moves": ""}))
        .await
        .json();
    assert_eq!(
        (play["status"].as_str(), play["verified"].as_bool()),
        (Some("unfinished"), Some(false))
    );

    let no_claim = app
        .post_play("fruit", "easy", 9, &json!({"moves": "U"}))
        .await;
    assert_eq!(no_claim.status, StatusCode::BAD_REQUEST);
    app.stop().await;
}

/// A play whose moves never end the level is stored with its first 1,000 moves only
/// (docs/http.md), its count whole.
#[tokio::test]
async fn a_long_unfinished_play_is_stored_bounded() {
    let database = TestDatabase::sqlite();
    let app = TestApp::on(&database, &[]).await;
    let mut seed = 1;
    // A level where tilting up leaves it unfinished: tilting up again changes nothing.
    while app
        .post_check("fruit", "easy", seed, &json!("UU"))
        .await
        .json()["status"]
        != "unfinished"
    {
        seed += 1;
    }
    let moves = "U".repeat(60_000);
    let play = json!({"solved": false, "moves": moves});
    let answer = app.post_play("fruit", "easy", seed, &play).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let answer = answer.json();
    assert_eq!(
        (answer["status"].as_str(), answer["moves_used"].as_u64()),
        (Some("unfinished"), Some(60_000))
    );
    let short = json!({"solved": false, "moves": "UUU"});
    assert_eq!(
        app.post_play("fruit", "easy", seed, &short).await.status,
        StatusCode::CREATED
    );

    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(&database.url)
        .await
        .unwrap();
    let stored: Vec<(String, i64)> =
        sqlx::query_as("SELECT moves, moves_used FROM plays ORDER BY id")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let first_moves = json!("U".repeat(1000)).to_string();
    assert_eq!(
        stored,
        [(first_moves, 60_000), (json!("UUU").to_string(), 3)]
    );
    app.stop().await;
}

#[tokio::test]
async fn verify_reports_and_names_broken_rules() {
    let app = TestApp::spawn().await;
    let level =
        json!({"game": "fruit", "width": 6, "height": 3, "grid": ["######", "#a..a#", "######"]});
    let answer = app.post("/verify", &level).await;
    assert_eq!(answer.status, 200);
    let report = answer.json();
    assert_eq!(
        (report["solvable"].as_bool(), report["par"].as_u64()),
        (Some(true), Some(1))
    );
    assert_eq!(report["metrics"]["solution_count"], 2);

    let broken = json!({"width": 6, "height": 3, "grid": ["######", "#a..b#", "######"]});
    let answer = app.post("/verify?game=fruit", &broken).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(answer.json()["rule"], "fruit.pairs");

    let shapeless = app.post("/verify?game=fruit", &json!({"grid": 3})).await;
    assert_eq!(shapeless.status, StatusCode::BAD_REQUEST);
    app.stop().await;
}

#[tokio::test]
async fn bad_input_gets_clear_problems_never_5xx() {
    let app = TestApp::spawn().await;
    let cases = [
        ("GET", "/levels/easy/-1", StatusCode::BAD_REQUEST),
        (
            "GET",
            "/levels/easy/18446744073709551616",
            StatusCode::BAD_REQUEST,
        ),
        ("GET", "/levels/insane/1", StatusCode::NOT_FOUND),
        ("GET", "/levels/easy/1?game=chess", StatusCode::NOT_FOUND),
        ("GET", "/nothing/here", StatusCode::NOT_FOUND),
        ("DELETE", "/levels/easy/1", StatusCode::METHOD_NOT_ALLOWED),
        (
            "GET",
            "/levels/easy/1/preview.svg?solution=maybe",
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (method, path, expected) in cases {
        let response = client()
            .request(method.parse().unwrap(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "{method} {path}");
        assert_eq!(
            response.headers()["content-type"],
            "application/problem+json",
            "{method} {path}"
        );
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["status"], expected.as_u16());
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    let not_json = client()
        .post(app.url("/levels/easy/1/check"))
        .header("Content-Type", "application/json")
        .body("moves=U")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), StatusCode::BAD_REQUEST);
    let form = client()
        .post(app.url("/levels/easy/1/check"))
        .body("moves=U")
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = format!("{{\"moves\": \"{}\"}}", "U".repeat(200_000));
    let too_big = client()
        .post(app.url("/levels/easy/1/check"))
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        too_big.headers()["content-type"],
        "application/problem+json"
    );
    app.stop().await;
}

#[tokio::test]
async fn a_generation_past_its_budget_gets_503_with_retry_after() {
    let app = TestApp::spawn_with(&["--gen-budget-ms", "0"]).await;
    let answer = app.get("/levels/expert/77").await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(answer.headers.contains_key("retry-after"));
    assert!(answer.is_problem());
    app.stop().await;
}

#[tokio::test]
async fn preview_games_and_probes() {
    let app = TestApp::spawn().await;
    let preview = app.get("/levels/hard/1/preview.svg?solution=true").await;
    assert_eq!(preview.status, 200);
    assert_eq!(preview.header("content-type"), "image/svg+xml");
    assert!(preview.body.starts_with("<svg"));
    assert_eq!(app.get_json("/games").await["default"], "fruit");
    assert_eq!(app.get("/healthz").await.status, 200);
    assert_eq!(app.get("/readyz").await.status, 200);
    app.stop().await;
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-postgres"),
    ignore = "needs PostgreSQL: scripts/test.sh sets it up"
)]
async fn postgres_two_replicas_agree_byte_for_byte_and_store_one_row_per_key() {
    let database = TestDatabase::postgres().await;
    // A long queue wait: this test is about agreement, not load shedding.
    let patient = ["--gen-queue-wait-ms", "60000"];
    let (a, b) = (
        TestApp::on(&database, &patient).await,
        TestApp::on(&database, &patient).await,
    );
    let mut requests = Vec::new();
    for seed in 100..106u64 {
        for app in [&a, &b, &a, &b] {
            let url = app.url(&format!("/levels/hard/{seed}"));
            requests.push(tokio::spawn(async move {
                let response = client().get(url).send().await.unwrap();
                assert_eq!(response.status(), 200);
                (seed, response.text().await.unwrap())
            }));
        }
    }
    let mut bodies = std::collections::BTreeMap::<u64, Vec<String>>::new();
    for request in requests {
        let (seed, body) = request.await.unwrap();
        bodies.entry(seed).or_default().push(body);
    }
    for (seed, copies) in &bodies {
        assert!(
            copies.iter().all(|c| c == &copies[0]),
            "seed {seed}: replicas disagree"
        );
    }
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&database.url).await.unwrap();
    let rows: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM levels")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows.0, 6);
    // Readiness reflects the database; plays land in PostgreSQL.
    assert_eq!(a.get("/readyz").await.status, 200);
    let level = a.get_level("fruit", "hard", 100).await;
    let play = json!({"solved": true, "moves": level["solution"]});
    let stored = b.post_play("fruit", "hard", 100, &play).await;
    assert_eq!(stored.status, StatusCode::CREATED);
    let plays: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM plays")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(plays.0, 1);
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn every_game_serves_checks_and_previews_at_every_tier() {
    let app = TestApp::spawn().await;
    let games = app.get_json("/games").await["games"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(games.len(), 5, "fruit, skiddy, hashi, tetropica, hopper");
    for game in &games {
        let name = game["name"].as_str().unwrap();
        for tier in ["easy", "medium", "hard", "expert"] {
            let level = app.get_level(name, tier, 7).await;
            assert_eq!(
                (level["game"].as_str(), level["difficulty"].as_str()),
                (Some(name), Some(tier))
            );
            let outcome = app
                .post_check(name, tier, 7, &level["solution"])
                .await
                .json();
            assert_eq!(outcome["status"], "won", "{name} {tier}: {outcome}");
            assert_eq!(outcome["moves_used"], level["par"], "{name} {tier}");
            let preview = app
                .get(&format!(
                    "/levels/{tier}/7/preview.svg?game={name}&solution=true"
                ))
                .await;
            assert_eq!(preview.header("content-type"), "image/svg+xml");
            assert!(preview.body.starts_with("<svg"));
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn bench_baseline_route_is_off_by_default() {
    let app = TestApp::spawn().await;
    assert_eq!(
        app.get("/bench/bytes/10").await.status,
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn bench_baseline_route_mirrors_a_level_when_on() {
    let app = TestApp::spawn_with(&["--bench-routes", "true"]).await;
    let level = app.get("/levels/hard/5").await;
    let size = level.body.len();
    let baseline = app.get(&format!("/bench/bytes/{size}")).await;
    assert_eq!(baseline.status, StatusCode::OK);
    for name in ["content-type", "cache-control"] {
        assert_eq!(baseline.header(name), level.header(name), "{name}");
    }
    assert_eq!(
        baseline.header("etag").len(),
        level.header("etag").len(),
        "same header bytes"
    );
    assert_eq!(baseline.body.len(), size);
    let too_big = app.get("/bench/bytes/99999999").await;
    assert_eq!(too_big.status, StatusCode::BAD_REQUEST);
    assert!(too_big.is_problem());
    app.stop().await;
}

/// Warm levels are answered before the router (src/http/warm.rs); a request the warm path
/// leaves to the router, here for a percent-encoded game name, gets the same level. The
/// two answers must match header for header and byte for byte, in every coding and as
/// 304.
#[tokio::test]
async fn warm_answers_match_the_routers_header_for_header() {
    let app = TestApp::spawn().await;
    let warm = "/levels/medium/7?game=hashi";
    let routed = "/levels/medium/7?game=h%61shi";
    assert_eq!(app.get(warm).await.status, 200, "generated, then in memory");
    let fetch = |path: &str, coding: &str, etag: Option<&str>| {
        let mut request = client()
            .get(app.url(path))
            .header("Accept-Encoding", coding);
        if let Some(etag) = etag {
            request = request.header("If-None-Match", etag);
        }
        async move {
            let answer = request.send().await.unwrap();
            let status = answer.status();
            let mut headers = answer.headers().clone();
            headers.remove("date");
            (status, headers, answer.bytes().await.unwrap())
        }
    };
    for coding in ["identity", "gzip", "br", "zstd"] {
        let first = fetch(warm, coding, None).await;
        assert_eq!(first.0, StatusCode::OK);
        assert_eq!(first, fetch(routed, coding, None).await, "{coding}");
        let etag = first.1["etag"].to_str().unwrap().to_string();
        let revalidated = fetch(warm, coding, Some(&etag)).await;
        assert_eq!(revalidated.0, StatusCode::NOT_MODIFIED, "{coding}");
        assert_eq!(
            revalidated,
            fetch(routed, coding, Some(&etag)).await,
            "{coding}"
        );
    }
    app.stop().await;
}

/// Warm requests are answered on the connection before hyper sees it
/// (src/http/warm_connection.rs); the first other request hands the connection to hyper
/// with the bytes it has not consumed. Pipelined, split into single bytes or mixed, every
/// request gets its answer, in order, on one connection.
#[tokio::test]
async fn one_connection_carries_warm_and_routed_requests_in_order() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::spawn().await;
    let warm = "GET /levels/easy/3?game=fruit HTTP/1.1\r\nHost: x\r\n\r\n";
    let level = app.get("/levels/easy/3?game=fruit").await;
    assert_eq!(level.status, 200, "generated, then in memory");
    let level = level.json();
    let routed = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let refused = "GET /levels/easy/3?game=fruit HTTP/1.1\r\n\r\n"; // no Host: 400

    let mut stream = tokio::net::TcpStream::connect(app.address()).await.unwrap();
    // Byte by byte, then two warm and one routed in one write, then warm again (now hyper's).
    for byte in warm.as_bytes() {
        stream.write_all(&[*byte]).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    stream
        .write_all(format!("{warm}{warm}{routed}{warm}{refused}").as_bytes())
        .await
        .unwrap();
    let mut stream = tokio::io::BufReader::new(stream);
    let mut answers = Vec::new();
    for _ in 0..6 {
        let answer = read_answer(&mut stream).await;
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status: u16 = head[9..12].parse().unwrap();
        answers.push((status, serde_json::from_str::<Value>(body).unwrap()));
    }
    let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
    assert_eq!(statuses, [200, 200, 200, 200, 200, 400]);
    for warm in [0, 1, 2, 4] {
        assert_eq!(answers[warm].1, level, "answer {warm}");
    }
    assert_eq!(answers[3].1["status"], "ok", "{}", answers[3].1);
    assert_eq!(answers[5].1["status"], 400, "{}", answers[5].1);
    app.stop().await;
}
