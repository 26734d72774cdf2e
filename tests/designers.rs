//! Designer and player routes (browse, stats, daily, packs) against the real server, on
//! SQLite and PostgreSQL.

mod common;

use common::{Server, client, drop_postgres, postgres_url, sqlite_url};
use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn get(url: &str) -> (StatusCode, reqwest::header::HeaderMap, String) {
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = no_redirects.get(url).send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.text().await.unwrap())
}

async fn get_json(url: &str) -> (StatusCode, Value) {
    let (status, _, body) = get(url).await;
    (status, serde_json::from_str(&body).unwrap())
}

/// Each path must answer 400 problem+json.
async fn all_bad_requests(server: &Server, paths: &[&str]) {
    for path in paths {
        let (status, headers, body) = get(&server.url(path)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
        assert_eq!(
            headers["content-type"], "application/problem+json",
            "{path}"
        );
    }
}

/// Stores fruit easy seeds 1..=6 and medium 1..=2 and returns the easy levels.
async fn seed_store(server: &Server) -> Vec<Value> {
    let mut easy = Vec::new();
    for seed in 1..=6 {
        let (status, level) = get_json(&server.url(&format!("/levels/easy/{seed}"))).await;
        assert_eq!(status, 200);
        easy.push(level);
    }
    for seed in 1..=2 {
        assert_eq!(
            get_json(&server.url(&format!("/levels/medium/{seed}")))
                .await
                .0,
            200
        );
    }
    easy
}

async fn browse_pages_in_par_seed_order(server: &Server, easy: &[Value]) {
    let mut expected: Vec<(u64, u64)> = easy
        .iter()
        .map(|l| (l["par"].as_u64().unwrap(), l["seed"].as_u64().unwrap()))
        .collect();
    expected.sort();
    let mut seen = Vec::new();
    let mut next = Some("/levels?game=fruit&difficulty=easy&limit=4".to_string());
    while let Some(path) = next {
        let (status, page) = get_json(&server.url(&path)).await;
        assert_eq!(status, 200, "{page}");
        for level in page["levels"].as_array().unwrap() {
            seen.push((
                level["par"].as_u64().unwrap(),
                level["seed"].as_u64().unwrap(),
            ));
            let link = level["links"]["level"].as_str().unwrap();
            assert_eq!(get(&server.url(link)).await.0, 200);
            assert!(
                level["links"]["preview"]
                    .as_str()
                    .unwrap()
                    .ends_with("preview.svg?game=fruit")
            );
            assert!(level["created_at"].as_str().unwrap().ends_with('Z'));
            assert!(level["attempts"].as_u64().unwrap() >= 1);
        }
        next = page["next"].as_str().map(str::to_string);
    }
    assert_eq!(seen, expected);

    // Every tier of the game, filtered by par.
    let (_, all) = get_json(&server.url("/levels?limit=200")).await;
    assert_eq!(all["levels"].as_array().unwrap().len(), 8);
    assert_eq!(all["next"], Value::Null);
    let (_, high) = get_json(&server.url("/levels?par_min=5&par_max=7")).await;
    let pars: Vec<u64> = high["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["par"].as_u64().unwrap())
        .collect();
    assert_eq!(pars.len(), 2, "the two medium levels: {high}");
    assert!(pars.iter().all(|p| (5..=7).contains(p)));
    let (_, none) = get_json(&server.url("/levels?game=hopper")).await;
    assert_eq!(none, json!({"levels": [], "next": null}));
    all_bad_requests(
        server,
        &[
            "/levels?limit=0",
            "/levels?limit=201",
            "/levels?limit=x",
            "/levels?par_min=-1",
            "/levels?par_min=9&par_max=3",
            "/levels?after=garbage",
            "/levels?after=3:1:insane",
            "/levels?difficulty=insane",
        ],
    )
    .await;
    assert_eq!(get(&server.url("/levels?game=chess")).await.0, 404);
}

async fn stats_count_levels_and_plays(server: &Server, easy: &[Value]) {
    let solution = easy[0]["solution"].clone();
    for (moves, solved) in [(solution, true), (json!(""), false)] {
        let response = client()
            .post(server.url("/levels/easy/1/plays"))
            .json(&json!({"solved": solved, "moves": moves, "time_ms": 4000}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }
    let (status, stats) = get_json(&server.url("/stats?game=fruit&difficulty=easy")).await;
    assert_eq!(status, 200, "{stats}");
    let groups = stats["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    let attempts: u64 = easy
        .iter()
        .map(|l| l["metrics"]["attempts"].as_u64().unwrap())
        .sum();
    assert_eq!(
        (g["levels"].as_u64(), g["candidates"].as_u64()),
        (Some(6), Some(attempts))
    );
    let rate = g["acceptance_rate"].as_f64().unwrap();
    assert!((rate - 6.0 / attempts as f64).abs() < 1e-9);
    let histogram: u64 = g["par"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["levels"].as_u64().unwrap())
        .sum();
    assert_eq!(histogram, 6);
    let mut pars: Vec<u64> = easy.iter().map(|l| l["par"].as_u64().unwrap()).collect();
    pars.sort();
    assert_eq!(
        g["par"]["p50"].as_u64(),
        Some(pars[2]),
        "nearest rank: 3rd of 6"
    );
    assert_eq!(g["par"]["p99"].as_u64(), Some(pars[5]));
    assert!(g["generate_ms"]["p95"].is_u64() && g["solve_ms"]["p50"].is_u64());
    let max_states = easy
        .iter()
        .map(|l| l["metrics"]["states"].as_u64().unwrap())
        .max();
    assert_eq!(g["states"]["max"].as_u64(), max_states);
    let dead_ends: u64 = easy
        .iter()
        .map(|l| l["metrics"]["dead_ends"].as_u64().unwrap())
        .sum();
    assert_eq!(g["metrics"]["dead_ends"]["levels"], 6, "{g}");
    assert_eq!(
        g["metrics"]["dead_ends"]["sum"].as_f64(),
        Some(dead_ends as f64)
    );
    // fruit's key metrics (`Game::key_metrics`), summarised without knowing them.
    let stones: Vec<f64> = easy
        .iter()
        .map(|l| l["metrics"]["stones"].as_f64().unwrap())
        .collect();
    let stones_stats = &g["metrics"]["stones"];
    assert_eq!(stones_stats["levels"], 6, "{stones_stats}");
    assert_eq!(stones_stats["sum"].as_f64(), Some(stones.iter().sum()));
    assert_eq!(
        stones_stats["max"].as_f64(),
        stones.iter().copied().reduce(f64::max)
    );
    let keys: Vec<&String> = g["metrics"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["dead_ends", "pairs", "reachable", "stones"]);
    let unique = easy
        .iter()
        .filter(|l| l["metrics"]["solution_count"] == 1)
        .count() as u64;
    assert_eq!(g["solution_count"]["unique"].as_u64(), Some(unique));
    let plays = &g["plays"];
    assert_eq!(
        (plays["count"].as_u64(), plays["won"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(plays["solve_rate"].as_f64(), Some(0.5));
    assert_eq!(plays["moves_over_par_mean"].as_f64(), Some(0.0));
    // From log buckets: within 1 % of the exact 4000.
    let p50 = plays["time_to_solve_ms_p50"].as_f64().unwrap();
    assert!((p50 - 4000.0).abs() <= 40.0, "{p50}");

    let (_, every) = get_json(&server.url("/stats")).await;
    let tiers: Vec<&str> = every["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["difficulty"].as_str().unwrap())
        .collect();
    assert_eq!(tiers, ["easy", "medium"]);
    let (status, headers, csv) = get(&server.url("/stats?format=csv")).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("game,difficulty,levels,candidates,acceptance_rate,"));
    assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
    assert!(lines[1].starts_with("fruit,easy,6,"));
    assert!(lines[0].ends_with(",dead_ends_mean,pairs_mean,reachable_mean,stones_mean"));
    all_bad_requests(server, &["/stats?format=xml", "/stats?difficulty=insane"]).await;
}

async fn daily_redirects_then_serves_forever(server: &Server) {
    let (status, headers, _) = get(&server.url("/levels/daily?game=fruit")).await;
    assert_eq!(status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(headers["cache-control"], "public, max-age=60");
    let location = headers["location"].to_str().unwrap().to_string();
    assert!(
        location.starts_with("/levels/daily?game=fruit&date="),
        "{location}"
    );
    assert_eq!(location.len(), "/levels/daily?game=fruit&date=".len() + 10);
    // Today's level itself (its key changes daily; the fixed date is checked below).
    let (status, _, _) = get(&server.url(&location)).await;
    assert_eq!(status, 200);

    // 2026-11-23 is a Monday: easy, seed 20261123.
    let (status, headers, body) = get(&server.url("/levels/daily?date=2026-11-23")).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(
        headers["content-location"],
        "/levels/easy/20261123?game=fruit"
    );
    let (_, same_headers, same) = get(&server.url("/levels/easy/20261123")).await;
    assert_eq!((body, &headers["etag"]), (same, &same_headers["etag"]));
    all_bad_requests(
        server,
        &[
            "/levels/daily?date=2026-02-30",
            "/levels/daily?date=yesterday",
            "/levels/daily?date=1969-12-31",
        ],
    )
    .await;
}

async fn packs_are_consecutive_stored_levels(server: &Server) {
    let (status, headers, body) = get(&server.url("/levels/easy?from=5&count=3")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let pack: Vec<Value> = serde_json::from_str(&body).unwrap();
    let seeds: Vec<u64> = pack.iter().map(|l| l["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [5, 6, 7]);
    for level in &pack {
        let (_, single) = get_json(&server.url(&format!("/levels/easy/{}", level["seed"]))).await;
        assert_eq!(&single, level, "a pack holds the stored levels");
    }
    // The last seed is a valid pack of one.
    let (status, last) =
        get_json(&server.url("/levels/easy?from=18446744073709551615&count=1")).await;
    assert_eq!(
        (status, last[0]["seed"].as_u64()),
        (StatusCode::OK, Some(u64::MAX))
    );
    all_bad_requests(
        server,
        &[
            "/levels/easy?count=3",
            "/levels/easy?from=1&count=0",
            "/levels/easy?from=1&count=101",
            "/levels/easy?from=-1",
            "/levels/easy?from=18446744073709551615&count=2",
        ],
    )
    .await;
    assert_eq!(get(&server.url("/levels/insane?from=1")).await.0, 404);
}

async fn play(server: &Server, seed: u64, moves: &Value, client: &str) -> Value {
    let response = client_post(
        server,
        seed,
        &json!({"solved": true, "moves": moves, "client": client}),
    )
    .await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body
}

async fn client_post(server: &Server, seed: u64, body: &Value) -> reqwest::Response {
    client()
        .post(server.url(&format!("/levels/easy/{seed}/plays")))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Seeds, in browse order, of the easy levels whose rating is within the query's bounds.
async fn rated_seeds(server: &Server, bounds: &str) -> Vec<u64> {
    let (status, page) = get_json(&server.url(&format!("/levels?difficulty=easy&{bounds}"))).await;
    assert_eq!(status, 200, "{page}");
    let mut seeds: Vec<u64> = page["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["seed"].as_u64().unwrap())
        .collect();
    seeds.sort();
    seeds
}

async fn ratings_follow_first_plays(server: &Server, easy: &[Value]) {
    let lose = json!("");
    // A newcomer solving a new level: both move, the change bounded to 100.
    let first = play(server, 2, &easy[1]["solution"], "alice").await;
    assert_eq!(first["rated"], true, "{first}");
    assert_eq!(first["player_rating"]["before"], 1500.0);
    assert_eq!(first["player_rating"]["after"], 1600.0);
    assert_eq!(first["level_rating"]["after"], 1400.0);
    // Her second play of the same level is stored but not rated.
    let again = play(server, 2, &lose, "alice").await;
    assert_eq!(again["rated"], false, "{again}");
    assert!(again.get("level_rating").is_none());

    // Ten players fail level 3 and ten solve level 4, all at once.
    let players: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
    let plays = players.iter().flat_map(|p| {
        [
            play(server, 3, &lose, p),
            play(server, 4, &easy[3]["solution"], p),
        ]
    });
    join_all(plays).await;
    // One client racing itself on level 5: exactly one play counts.
    let racing: Vec<_> = (0..8).map(|_| play(server, 5, &lose, "bob")).collect();
    let rated = join_all(racing)
        .await
        .iter()
        .filter(|p| p["rated"] == true)
        .count();
    assert_eq!(rated, 1, "only bob's first play of a level is rated");

    assert_eq!(rated_seeds(server, "rating_min=1600").await, [3, 5]);
    assert_eq!(rated_seeds(server, "rating_max=1450").await, [2, 4]);
    assert_eq!(
        rated_seeds(server, "rating_min=1000&rating_max=4000").await,
        [2, 3, 4, 5]
    );
    let (_, page) = get_json(&server.url("/levels?difficulty=easy&limit=200")).await;
    for level in page["levels"].as_array().unwrap() {
        let expected_plays = match level["seed"].as_u64().unwrap() {
            2 | 5 => 1,
            3 | 4 => 10,
            _ => 0,
        };
        assert_eq!(level["rated_plays"], expected_plays, "{level}");
        assert_eq!(level["rating"].is_null(), expected_plays == 0, "{level}");
    }
    harder_than_par_says(server, page["levels"].as_array().unwrap()).await;

    let (_, stats) = get_json(&server.url("/stats?game=fruit&difficulty=easy")).await;
    let group = &stats["groups"][0];
    assert_eq!(group["ratings"]["rated_levels"], 4, "{group}");
    assert!(group["ratings"]["max"].as_f64() > group["ratings"]["min"].as_f64());
    let buckets = group["par"]["histogram"].as_array().unwrap();
    let sum = |field: &str| {
        buckets
            .iter()
            .map(|b| b[field].as_i64().unwrap())
            .sum::<i64>()
    };
    assert_eq!(sum("rated_levels"), 4);
    assert_eq!(sum("plays"), group["plays"]["count"].as_i64().unwrap());
    assert_eq!(sum("won"), group["plays"]["won"].as_i64().unwrap());
    all_bad_requests(
        server,
        &[
            "/levels?rating_min=hard",
            "/levels?rating_min=NaN",
            "/levels?rating_max=inf",
            "/levels?rating_min=1600&rating_max=1500",
            "/levels?above_par_min=-inf",
        ],
    )
    .await;
}

/// `rating_above_par` is a rated level's rating minus the mean of the rated levels of its
/// par, and `above_par_min` keeps the levels at least that far above.
async fn harder_than_par_says(server: &Server, levels: &[Value]) {
    let rated: Vec<&Value> = levels.iter().filter(|l| !l["rating"].is_null()).collect();
    for level in &rated {
        let peers: Vec<f64> = rated
            .iter()
            .filter(|peer| peer["par"] == level["par"])
            .map(|peer| peer["rating"].as_f64().unwrap())
            .collect();
        let mean = peers.iter().sum::<f64>() / peers.len() as f64;
        let expected = level["rating"].as_f64().unwrap() - mean;
        let above = level["rating_above_par"].as_f64().unwrap();
        // Both sides work from ratings rounded to tenths.
        assert!((above - expected).abs() < 0.2, "{level} vs mean {mean}");
    }
    for level in levels.iter().filter(|l| l["rating"].is_null()) {
        assert!(level["rating_above_par"].is_null(), "{level}");
    }
    let mut harder: Vec<u64> = rated
        .iter()
        .filter(|l| l["rating_above_par"].as_f64().unwrap() >= 1.0)
        .map(|l| l["seed"].as_u64().unwrap())
        .collect();
    harder.sort();
    assert!(
        !harder.is_empty(),
        "the fixture rates two levels of one par apart"
    );
    assert_eq!(rated_seeds(server, "above_par_min=1").await, harder);
    let everything_rated = rated_seeds(server, "above_par_min=-4000").await;
    assert_eq!(everything_rated, [2, 3, 4, 5]);
}

async fn designer_routes(url: &str) {
    let server = Server::start(url, &["--gen-queue-wait-ms", "60000"]).await;
    let easy = seed_store(&server).await;
    browse_pages_in_par_seed_order(&server, &easy).await;
    stats_count_levels_and_plays(&server, &easy).await;
    ratings_follow_first_plays(&server, &easy).await;
    daily_redirects_then_serves_forever(&server).await;
    packs_are_consecutive_stored_levels(&server).await;
    boolean_key_metrics_count_as_one(&server).await;
    server.stop().await;
}

/// skiddy's `perfect` and `breakable` are booleans: their sum counts the levels with them.
async fn boolean_key_metrics_count_as_one(server: &Server) {
    let mut levels = Vec::new();
    for seed in 1..=3 {
        let (status, level) =
            get_json(&server.url(&format!("/levels/medium/{seed}?game=skiddy"))).await;
        assert_eq!(status, 200, "{level}");
        levels.push(level);
    }
    let (_, stats) = get_json(&server.url("/stats?game=skiddy&difficulty=medium")).await;
    let metrics = &stats["groups"][0]["metrics"];
    for flag in ["perfect", "breakable"] {
        let set = levels.iter().filter(|l| l["metrics"][flag] == true).count();
        assert_eq!(metrics[flag]["levels"], 3, "{metrics}");
        assert_eq!(metrics[flag]["sum"].as_f64(), Some(set as f64), "{flag}");
    }
    let combo: Vec<f64> = levels
        .iter()
        .filter_map(|l| l["metrics"]["combo_par"].as_f64())
        .collect();
    assert_eq!(metrics["combo_par"]["levels"], combo.len(), "{metrics}");
}

#[tokio::test]
async fn designer_routes_on_sqlite() {
    designer_routes(&sqlite_url()).await;
}

#[tokio::test]
async fn designer_routes_on_postgres() {
    let url = postgres_url().await;
    designer_routes(&url).await;
    drop_postgres(&url).await;
}

#[tokio::test]
async fn an_overloaded_pack_is_503_with_retry_after() {
    let server = Server::start(&sqlite_url(), &["--gen-budget-ms", "0"]).await;
    let (status, headers, _) = get(&server.url("/levels/expert?from=1&count=20")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(headers.contains_key("retry-after"));
    assert_eq!(headers["content-type"], "application/problem+json");
    server.stop().await;
}
