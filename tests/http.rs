//! The HTTP contract (api.md) against the real server on a random port.

mod common;

use common::{Server, client, postgres_url, sqlite_url};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn get_json(url: &str) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let response = client().get(url).send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.json().await.unwrap())
}

async fn post_json(url: String, body: &Value) -> reqwest::Response {
    client().post(url).json(body).send().await.unwrap()
}

fn is_problem(headers: &reqwest::header::HeaderMap) -> bool {
    headers["content-type"] == "application/problem+json"
}

#[tokio::test]
async fn level_is_cacheable_forever_and_304s() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let response = client()
        .get(server.url("/levels/easy/42"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"'), "strong ETag: {etag}");
    let level: Value = response.json().await.unwrap();
    assert_eq!(
        (
            level["game"].as_str(),
            level["difficulty"].as_str(),
            level["seed"].as_u64()
        ),
        (Some("fruit"), Some("easy"), Some(42))
    );
    let par = level["par"].as_u64().unwrap();
    assert!((2..=4).contains(&par), "easy fruit par window: {par}");

    let again = client()
        .get(server.url("/levels/easy/42"))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    server.stop().await;
}

#[tokio::test]
async fn same_key_same_bytes_after_a_restart() {
    let url = sqlite_url();
    let server = Server::start(&url, &[]).await;
    let first = server.text("/levels/hard/7?game=fruit").await;
    server.stop().await;
    let server = Server::start(&url, &[]).await;
    let second = server.text("/levels/hard/7?game=fruit").await;
    assert_eq!(first, second, "served as stored, timings included");
    server.stop().await;
}

#[tokio::test]
async fn every_tier_serves_a_level_in_its_window() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let (_, _, games) = get_json(&server.url("/games")).await;
    let fruit = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "fruit")
        .unwrap()
        .clone();
    for tier in fruit["tiers"].as_array().unwrap() {
        let difficulty = tier["difficulty"].as_str().unwrap();
        let (status, _, level) = get_json(&server.url(&format!("/levels/{difficulty}/3"))).await;
        assert_eq!(status, 200);
        let par = level["par"].as_u64().unwrap();
        assert!(
            par >= tier["par_min"].as_u64().unwrap(),
            "{difficulty}: {par}"
        );
        if let Some(max) = tier["par_max"].as_u64() {
            assert!(par <= max, "{difficulty}: {par}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn check_replays_moves_and_awards_the_par_medal() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let (_, _, level) = get_json(&server.url("/levels/medium/5")).await;
    let solution = level["solution"].clone();
    let response = post_json(
        server.url("/levels/medium/5/check"),
        &json!({"moves": solution}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let outcome: Value = response.json().await.unwrap();
    assert_eq!(outcome["status"], "won");
    assert_eq!(outcome["moves_used"], level["par"]);
    assert_eq!(outcome["medals"], json!(["par"]));

    let response = post_json(server.url("/levels/medium/5/check"), &json!({"moves": ""})).await;
    let outcome: Value = response.json().await.unwrap();
    assert_eq!(
        (outcome["status"].as_str(), outcome["moves_used"].as_u64()),
        (Some("unfinished"), Some(0))
    );

    let response = post_json(
        server.url("/levels/medium/5/check"),
        &json!({"moves": "UXD"}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(is_problem(response.headers()));
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["rule"], "moves.letters");
    server.stop().await;
}

#[tokio::test]
async fn plays_are_replayed_and_stored() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let (_, _, level) = get_json(&server.url("/levels/easy/9")).await;
    let body = json!({"solved": true, "moves": level["solution"], "time_ms": 5400});
    let response = post_json(server.url("/levels/easy/9/plays"), &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let play: Value = response.json().await.unwrap();
    assert_eq!(
        (play["status"].as_str(), play["verified"].as_bool()),
        (Some("won"), Some(true))
    );
    assert!(play["id"].as_i64().is_some());

    // A claim the replay does not support is stored, and marked unverified.
    let body = json!({"solved": true, "moves": ""});
    let play: Value = post_json(server.url("/levels/easy/9/plays"), &body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (play["status"].as_str(), play["verified"].as_bool()),
        (Some("unfinished"), Some(false))
    );

    let response = post_json(server.url("/levels/easy/9/plays"), &json!({"moves": "U"})).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    server.stop().await;
}

#[tokio::test]
async fn verify_reports_and_names_broken_rules() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let level =
        json!({"game": "fruit", "width": 6, "height": 3, "grid": ["######", "#a..a#", "######"]});
    let (status, _, report) = {
        let r = post_json(server.url("/verify"), &level).await;
        (
            r.status(),
            r.headers().clone(),
            r.json::<Value>().await.unwrap(),
        )
    };
    assert_eq!(status, 200);
    assert_eq!(
        (report["solvable"].as_bool(), report["par"].as_u64()),
        (Some(true), Some(1))
    );
    assert_eq!(report["metrics"]["solution_count"], 2);

    let broken = json!({"width": 6, "height": 3, "grid": ["######", "#a..b#", "######"]});
    let response = post_json(server.url("/verify?game=fruit"), &broken).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["rule"], "fruit.pairs");

    let shapeless = json!({"grid": 3});
    let response = post_json(server.url("/verify?game=fruit"), &shapeless).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    server.stop().await;
}

#[tokio::test]
async fn bad_input_gets_clear_problems_never_5xx() {
    let server = Server::start(&sqlite_url(), &[]).await;
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
            .request(method.parse().unwrap(), server.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "{method} {path}");
        assert!(is_problem(response.headers()), "{method} {path}");
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["status"], expected.as_u16());
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    let not_json = client()
        .post(server.url("/levels/easy/1/check"))
        .header("Content-Type", "application/json")
        .body("moves=U")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), StatusCode::BAD_REQUEST);
    let form = client()
        .post(server.url("/levels/easy/1/check"))
        .body("moves=U")
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = format!("{{\"moves\": \"{}\"}}", "U".repeat(200_000));
    let too_big = client()
        .post(server.url("/levels/easy/1/check"))
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(is_problem(too_big.headers()));
    server.stop().await;
}

#[tokio::test]
async fn a_generation_past_its_budget_gets_503_with_retry_after() {
    let server = Server::start(&sqlite_url(), &["--gen-budget-ms", "0"]).await;
    let response = client()
        .get(server.url("/levels/expert/77"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().contains_key("retry-after"));
    assert!(is_problem(response.headers()));
    server.stop().await;
}

#[tokio::test]
async fn preview_games_and_probes() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let response = client()
        .get(server.url("/levels/hard/1/preview.svg?solution=true"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/svg+xml");
    assert!(response.text().await.unwrap().starts_with("<svg"));
    let (status, _, games) = get_json(&server.url("/games")).await;
    assert_eq!(status, 200);
    assert_eq!(games["default"], "fruit");
    assert_eq!(get_json(&server.url("/healthz")).await.0, 200);
    assert_eq!(get_json(&server.url("/readyz")).await.0, 200);
    server.stop().await;
}

#[tokio::test]
async fn postgres_two_replicas_agree_byte_for_byte_and_store_one_row_per_key() {
    let url = postgres_url().await;
    // A long queue wait: this test is about agreement, not load shedding.
    let patient = ["--gen-queue-wait-ms", "60000"];
    let (a, b) = (
        Server::start(&url, &patient).await,
        Server::start(&url, &patient).await,
    );
    let mut requests = Vec::new();
    for seed in 100..106u64 {
        for server in [&a, &b, &a, &b] {
            let url = server.url(&format!("/levels/hard/{seed}"));
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
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let rows: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM levels")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows.0, 6);
    // Readiness reflects the database; plays land in PostgreSQL.
    assert_eq!(get_json(&a.url("/readyz")).await.0, 200);
    let (_, _, level) = get_json(&a.url("/levels/hard/100")).await;
    let play = post_json(
        b.url("/levels/hard/100/plays"),
        &json!({"solved": true, "moves": level["solution"]}),
    )
    .await;
    assert_eq!(play.status(), StatusCode::CREATED);
    let plays: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM plays")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(plays.0, 1);
    a.stop().await;
    b.stop().await;
    drop(conn);
    common::drop_postgres(&url).await;
}

#[tokio::test]
async fn every_game_serves_checks_and_previews_at_every_tier() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let (_, _, games) = get_json(&server.url("/games")).await;
    let games = games["games"].as_array().unwrap().clone();
    assert_eq!(games.len(), 5, "fruit, skiddy, hashi, tetropica, hopper");
    for game in &games {
        let name = game["name"].as_str().unwrap();
        for tier in ["easy", "medium", "hard", "expert"] {
            let path = format!("/levels/{tier}/7?game={name}");
            let (status, _, level) = get_json(&server.url(&path)).await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(
                (level["game"].as_str(), level["difficulty"].as_str()),
                (Some(name), Some(tier))
            );
            let check = format!("/levels/{tier}/7/check?game={name}");
            let outcome: Value =
                post_json(server.url(&check), &json!({"moves": level["solution"]}))
                    .await
                    .json()
                    .await
                    .unwrap();
            assert_eq!(outcome["status"], "won", "{path}: {outcome}");
            assert_eq!(outcome["moves_used"], level["par"], "{path}");
            let preview = client()
                .get(server.url(&format!(
                    "/levels/{tier}/7/preview.svg?game={name}&solution=true"
                )))
                .send()
                .await
                .unwrap();
            assert_eq!(preview.headers()["content-type"], "image/svg+xml");
            assert!(preview.text().await.unwrap().starts_with("<svg"));
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn bench_baseline_route_is_off_by_default_and_mirrors_a_level_when_on() {
    let server = Server::start(&sqlite_url(), &[]).await;
    let off = client()
        .get(server.url("/bench/bytes/10"))
        .send()
        .await
        .unwrap();
    assert_eq!(off.status(), StatusCode::NOT_FOUND);
    server.stop().await;

    let server = Server::start(&sqlite_url(), &["--bench-routes", "true"]).await;
    let level = client()
        .get(server.url("/levels/hard/5"))
        .send()
        .await
        .unwrap();
    let level_headers = level.headers().clone();
    let size = level.bytes().await.unwrap().len();
    let baseline = client()
        .get(server.url(&format!("/bench/bytes/{size}")))
        .send()
        .await
        .unwrap();
    assert_eq!(baseline.status(), StatusCode::OK);
    for name in ["content-type", "cache-control"] {
        assert_eq!(baseline.headers()[name], level_headers[name], "{name}");
    }
    assert_eq!(
        baseline.headers()["etag"].len(),
        level_headers["etag"].len(),
        "same header bytes"
    );
    assert_eq!(baseline.bytes().await.unwrap().len(), size);
    let (status, headers, _) = get_json(&server.url("/bench/bytes/99999999")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(is_problem(&headers));
    server.stop().await;
}
