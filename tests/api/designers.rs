//! Designer and player routes (browse, stats, ratings, daily, packs), each checked on
//! SQLite and on PostgreSQL: `on_both_backends!` turns one `async fn(Backend)` into a test
//! per backend.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use levelforge::service::store::rating::{ESTABLISHED_DEVIATION, Rating, rate_play};

use crate::helpers::{Backend, TestApp, TestDatabase};

on_both_backends!(
    browse_pages_in_par_then_seed_order_with_links,
    browse_filters_by_tier_and_par_and_rejects_bad_queries,
    stats_summarise_levels_key_metrics_and_plays,
    stats_come_as_csv_with_one_row_per_group,
    a_first_play_moves_both_ratings_and_repeats_do_not,
    concurrent_first_plays_rate_once_per_player_and_level,
    rating_above_par_compares_a_level_with_its_par_peers,
    browse_finds_the_levels_farthest_from_their_prior,
    daily_redirects_to_todays_date_then_serves_that_level_forever,
    packs_are_consecutive_stored_levels,
    boolean_key_metrics_count_the_levels_with_them,
);

async fn start(backend: Backend) -> TestApp {
    // The fixtures post far more plays from one address than a player would.
    TestApp::on(
        &TestDatabase::of(backend).await,
        &[
            "--gen-queue-wait-ms",
            "60000",
            "--rate-limit-plays-per-min",
            "0",
        ],
    )
    .await
}

/// Stores fruit easy seeds 1..=6 and medium 1..=2 and returns the easy levels.
async fn seed_store(app: &TestApp) -> Vec<Value> {
    let mut easy = Vec::new();
    for seed in 1..=6 {
        easy.push(app.get_level("fruit", "easy", seed).await);
    }
    for seed in 1..=2 {
        app.get_level("fruit", "medium", seed).await;
    }
    easy
}

fn seeds(page: &Value) -> Vec<u64> {
    let mut seeds: Vec<u64> = page["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["seed"].as_u64().unwrap())
        .collect();
    seeds.sort();
    seeds
}

async fn browse_pages_in_par_then_seed_order_with_links(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    let mut expected: Vec<(u64, u64)> = easy
        .iter()
        .map(|l| (l["par"].as_u64().unwrap(), l["seed"].as_u64().unwrap()))
        .collect();
    expected.sort();
    let mut seen = Vec::new();
    let mut next = Some("/levels?game=fruit&difficulty=easy&limit=4".to_string());
    while let Some(path) = next {
        let page = app.get_json(&path).await;
        for level in page["levels"].as_array().unwrap() {
            seen.push((
                level["par"].as_u64().unwrap(),
                level["seed"].as_u64().unwrap(),
            ));
            let link = level["links"]["level"].as_str().unwrap();
            assert_eq!(app.get(link).await.status, 200);
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
    app.stop().await;
}

async fn browse_filters_by_tier_and_par_and_rejects_bad_queries(backend: Backend) {
    let app = start(backend).await;
    seed_store(&app).await;
    let all = app.browse("limit=200").await;
    assert_eq!(all["levels"].as_array().unwrap().len(), 8, "every tier");
    assert_eq!(all["next"], Value::Null);
    let high = app.browse("par_min=5&par_max=7").await;
    let pars: Vec<u64> = high["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["par"].as_u64().unwrap())
        .collect();
    assert_eq!(pars.len(), 2, "the two medium levels: {high}");
    assert!(pars.iter().all(|p| (5..=7).contains(p)));
    let none = app.browse("game=hopper").await;
    assert_eq!(none, json!({"levels": [], "next": null}));
    app.assert_bad_requests(&[
        "/levels?limit=0",
        "/levels?limit=201",
        "/levels?limit=x",
        "/levels?par_min=-1",
        "/levels?par_min=9&par_max=3",
        "/levels?after=garbage",
        "/levels?after=3:1:insane",
        "/levels?difficulty=insane",
        // Integers are spelled one way, as seeds are: no sign, no leading zero.
        "/levels?limit=+5",
        "/levels?limit=05",
        "/levels?par_min=%2B1",
        "/levels?par_max=007",
        "/levels?par_max=4294967296",
    ])
    .await;
    let detail = app.get("/levels?limit=%2B5").await.json()["detail"].clone();
    let detail = detail.as_str().unwrap();
    assert!(
        detail.contains(
            "limit: `+5` is not a decimal number from 0 to 4294967295 written \
                         without sign or leading zeros"
        ),
        "{detail}"
    );
    assert_eq!(app.get("/levels?game=chess").await.status, 404);
    app.stop().await;
}

/// Two plays of easy seed 1 (one won in 4 s, one lost), by no named client.
async fn play_level_one_twice(app: &TestApp, easy: &[Value]) {
    for (moves, solved) in [(easy[0]["solution"].clone(), true), (json!(""), false)] {
        let play = json!({"solved": solved, "moves": moves, "time_ms": 4000});
        assert_eq!(app.post_play("fruit", "easy", 1, &play).await.status, 201);
    }
}

async fn stats_summarise_levels_key_metrics_and_plays(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    play_level_one_twice(&app, &easy).await;
    let stats = app.get_stats("game=fruit&difficulty=easy").await;
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

    let every = app.get_stats("").await;
    let tiers: Vec<&str> = every["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["difficulty"].as_str().unwrap())
        .collect();
    assert_eq!(tiers, ["easy", "medium"]);
    app.assert_bad_requests(&[
        "/stats?format=xml",
        "/stats?difficulty=insane",
        // Found by schemathesis with seed 5150: documented in openapi.yaml.
        "/stats?since=5959-08-12&until=2765-12-02",
        "/stats?since=2026-01-01&until=2027-01-02",
    ])
    .await;
    app.stop().await;
}

async fn stats_come_as_csv_with_one_row_per_group(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    play_level_one_twice(&app, &easy).await;
    let csv = app.get("/stats?format=csv").await;
    assert_eq!(csv.status, 200);
    assert_eq!(csv.header("content-type"), "text/csv; charset=utf-8");
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(lines.len(), 3, "a header, easy and medium: {}", csv.body);
    assert!(lines[0].starts_with("game,difficulty,levels,candidates,acceptance_rate,"));
    assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
    assert!(lines[1].starts_with("fruit,easy,6,"));
    assert!(lines[0].ends_with(",dead_ends_mean,pairs_mean,reachable_mean,stones_mean"));
    app.stop().await;
}

/// A named client's claimed win of easy `seed` (a loss unless `moves` solve it); must be
/// 201.
async fn play(app: &TestApp, seed: u64, moves: &Value, client: &str) -> Value {
    let body = json!({"solved": true, "moves": moves, "client": client});
    let answer = app.post_play("fruit", "easy", seed, &body).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.json()
}

/// Seeds of the easy levels whose rating is within the query's bounds.
/// The browse summary of easy `seed`.
async fn summary(app: &TestApp, seed: u64) -> Value {
    let page = app.browse("difficulty=easy&limit=200").await;
    page["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["seed"] == seed)
        .cloned()
        .unwrap_or_else(|| panic!("easy {seed} is stored: {page}"))
}

async fn rated_seeds(app: &TestApp, bounds: &str) -> Vec<u64> {
    seeds(&app.browse(&format!("difficulty=easy&{bounds}")).await)
}

async fn a_first_play_moves_both_ratings_and_repeats_do_not(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    // An established player solving a new level: both move, the change bounded to 100.
    // The level starts at its prior with the wide deviation; the player is at 1500.
    let prior = summary(&app, 2).await["prior_rating"].as_f64().unwrap();
    app.established_player("alice", "fruit").await;
    let first = play(&app, 2, &easy[1]["solution"], "alice").await;
    assert_eq!(first["rated"], true, "{first}");
    assert_eq!(first["player_rating"]["before"], 1500.0);
    let level = Rating {
        rating: prior,
        ..Rating::default()
    };
    let alice = Rating {
        deviation: ESTABLISHED_DEVIATION,
        ..Rating::default()
    };
    let rated = rate_play(alice, level, true);
    // Browse shows the prior in tenths, so the level's new rating is known to within 0.1.
    let near = |served: &Value, x: f64| (served.as_f64().unwrap() - x).abs() <= 0.1;
    assert!(
        near(&first["player_rating"]["after"], rated.player.rating),
        "{first}"
    );
    assert!(
        near(&first["level_rating"]["after"], rated.level.rating),
        "{first}"
    );
    assert!(rated.player.rating > 1500.0 && rated.level.rating < prior);
    // Her second play of the same level (with no move, too) is stored but not rated.
    let again = play(&app, 2, &json!(""), "alice").await;
    assert_eq!(again["rated"], false, "{again}");
    assert!(again.get("level_rating").is_none());
    let bound = rated.level.rating + 0.5;
    assert_eq!(rated_seeds(&app, &format!("rating_max={bound}")).await, [2]);
    app.stop().await;
}

/// The first move of `level`'s solution: a play that loses it, with a move.
fn one_move(level: &Value) -> Value {
    json!(&level["solution"].as_str().unwrap()[..1])
}

/// Ten established players fail level 3 and ten solve level 4, all at once; bob races
/// himself on level 5. Returns the easy levels as browse lists them afterwards.
async fn rate_levels_three_to_five(app: &TestApp, easy: &[Value]) -> Vec<Value> {
    let players: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
    for name in players.iter().map(String::as_str).chain(["bob"]) {
        app.established_player(name, "fruit").await;
    }
    let lose = one_move(&easy[2]);
    let plays = players.iter().flat_map(|p| {
        [
            play(app, 3, &lose, p),
            play(app, 4, &easy[3]["solution"], p),
        ]
    });
    join_all(plays).await;
    let lose = one_move(&easy[4]);
    let racing: Vec<_> = (0..8).map(|_| play(app, 5, &lose, "bob")).collect();
    let rated = join_all(racing)
        .await
        .iter()
        .filter(|p| p["rated"] == true)
        .count();
    assert_eq!(rated, 1, "only bob's first play of a level is rated");
    app.browse("difficulty=easy&limit=200").await["levels"]
        .as_array()
        .unwrap()
        .clone()
}

async fn concurrent_first_plays_rate_once_per_player_and_level(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    let levels = rate_levels_three_to_five(&app, &easy).await;
    let of = |seed: u64| levels.iter().find(|l| l["seed"] == seed).unwrap();
    let moved = |seed: u64| {
        of(seed)["rating"].as_f64().unwrap() - of(seed)["prior_rating"].as_f64().unwrap()
    };
    // Losses lift a level above its prior, wins lower it.
    assert!(
        moved(3) > 0.0 && moved(5) > 0.0 && moved(4) < 0.0,
        "{levels:?}"
    );
    for seed in [3, 4, 5] {
        let rating = of(seed)["rating"].as_f64().unwrap();
        let window = format!("rating_min={}&rating_max={}", rating - 0.05, rating + 0.05);
        assert_eq!(rated_seeds(&app, &window).await, [seed]);
    }
    assert_eq!(
        rated_seeds(&app, "rating_min=400&rating_max=4000").await,
        [3, 4, 5]
    );
    for level in &levels {
        let expected_plays = match level["seed"].as_u64().unwrap() {
            5 => 1,
            3 | 4 => 10,
            _ => 0,
        };
        assert_eq!(level["rated_plays"], expected_plays, "{level}");
        assert_eq!(level["rating"].is_null(), expected_plays == 0, "{level}");
    }

    let stats = app.get_stats("game=fruit&difficulty=easy").await;
    let group = &stats["groups"][0];
    assert_eq!(group["ratings"]["rated_levels"], 3, "{group}");
    assert!(group["ratings"]["max"].as_f64() > group["ratings"]["min"].as_f64());
    let buckets = group["par"]["histogram"].as_array().unwrap();
    let sum = |field: &str| {
        buckets
            .iter()
            .map(|b| b[field].as_i64().unwrap())
            .sum::<i64>()
    };
    assert_eq!(sum("rated_levels"), 3);
    assert_eq!(sum("plays"), group["plays"]["count"].as_i64().unwrap());
    assert_eq!(sum("won"), group["plays"]["won"].as_i64().unwrap());
    app.assert_bad_requests(&[
        "/levels?rating_min=hard",
        "/levels?rating_min=NaN",
        "/levels?rating_max=inf",
        "/levels?rating_min=1600&rating_max=1500",
        "/levels?above_par_min=-inf",
    ])
    .await;
    app.stop().await;
}

/// `rating_above_par` is a rated level's rating minus the mean of the rated levels of its
/// par, and `above_par_min` keeps the levels at least that far above.
async fn rating_above_par_compares_a_level_with_its_par_peers(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    app.established_player("alice", "fruit").await;
    play(&app, 2, &easy[1]["solution"], "alice").await;
    let levels = rate_levels_three_to_five(&app, &easy).await;
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
    assert_eq!(rated_seeds(&app, "above_par_min=1").await, harder);
    assert_eq!(
        rated_seeds(&app, "above_par_min=-4000").await,
        [2, 3, 4, 5],
        "every rated level"
    );
    app.stop().await;
}

/// Every stored level has the prior its figures predicted; `prior_gap_min` and
/// `sort=prior_gap` find the rated ones players moved farthest from it.
async fn browse_finds_the_levels_farthest_from_their_prior(backend: Backend) {
    let app = start(backend).await;
    let easy = seed_store(&app).await;
    let levels = rate_levels_three_to_five(&app, &easy).await;
    let gap =
        |l: &Value| (l["rating"].as_f64().unwrap() - l["prior_rating"].as_f64().unwrap()).abs();
    for level in &levels {
        assert!(level["prior_rating"].is_number(), "{level}");
    }
    let rated: Vec<&Value> = levels.iter().filter(|l| !l["rating"].is_null()).collect();
    let mut by_gap: Vec<(f64, u64)> = rated
        .iter()
        .map(|l| (gap(l), l["seed"].as_u64().unwrap()))
        .collect();
    by_gap.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let sorted = app.browse("difficulty=easy&sort=prior_gap").await;
    assert!(sorted["next"].is_null(), "{sorted}");
    let expected: Vec<u64> = by_gap.iter().map(|(_, seed)| *seed).collect();
    let got: Vec<u64> = sorted["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(got, expected, "farthest from the prior first");
    // Gaps are compared on tenths; a bound between the two largest keeps the first only.
    let bound = (by_gap[0].0 + by_gap[1].0) / 2.0;
    assert!(
        by_gap[0].0 - by_gap[1].0 > 0.5,
        "the fixture moves levels by different amounts"
    );
    assert_eq!(
        rated_seeds(&app, &format!("prior_gap_min={bound}")).await,
        [by_gap[0].1]
    );
    app.assert_bad_requests(&[
        "/levels?sort=rating",
        "/levels?sort=prior_gap&after=1:1:easy",
        "/levels?prior_gap_min=NaN",
    ])
    .await;
    app.stop().await;
}

async fn daily_redirects_to_todays_date_then_serves_that_level_forever(backend: Backend) {
    let app = start(backend).await;
    let redirect = app.get("/levels/daily?game=fruit").await;
    assert_eq!(redirect.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(redirect.header("cache-control"), "public, max-age=60");
    let location = redirect.header("location");
    assert!(
        location.starts_with("/levels/daily?game=fruit&date="),
        "{location}"
    );
    assert_eq!(location.len(), "/levels/daily?game=fruit&date=".len() + 10);
    // Today's level itself (its key changes daily; the fixed date is checked below).
    assert_eq!(app.get(location).await.status, 200);

    // 2026-11-23 is a Monday: easy, seed 20261123.
    let daily = app.get("/levels/daily?date=2026-11-23").await;
    assert_eq!(daily.status, 200);
    assert_eq!(
        daily.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert_eq!(
        daily.header("content-location"),
        "/levels/easy/20261123?game=fruit"
    );
    let same = app.get("/levels/easy/20261123").await;
    assert_eq!(
        (&daily.body, daily.header("etag")),
        (&same.body, same.header("etag"))
    );
    app.assert_bad_requests(&[
        "/levels/daily?date=2026-02-30",
        "/levels/daily?date=yesterday",
        "/levels/daily?date=1969-12-31",
    ])
    .await;
    app.stop().await;
}

async fn packs_are_consecutive_stored_levels(backend: Backend) {
    let app = start(backend).await;
    let answer = app.get("/levels/easy?from=5&count=3").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    let pack: Vec<Value> = serde_json::from_str(&answer.body).unwrap();
    let seeds: Vec<u64> = pack.iter().map(|l| l["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [5, 6, 7]);
    for level in &pack {
        let single = app
            .get_level("fruit", "easy", level["seed"].as_u64().unwrap())
            .await;
        assert_eq!(&single, level, "a pack holds the stored levels");
    }
    // The last seed is a valid pack of one.
    let last = app
        .get_json("/levels/easy?from=18446744073709551615&count=1")
        .await;
    assert_eq!(last[0]["seed"].as_u64(), Some(u64::MAX));
    app.assert_bad_requests(&[
        "/levels/easy?count=3",
        "/levels/easy?from=1&count=0",
        "/levels/easy?from=1&count=101",
        "/levels/easy?from=-1",
        "/levels/easy?from=18446744073709551615&count=2",
        "/levels/easy?from=1&count=%2B3",
        "/levels/easy?from=1&count=03",
    ])
    .await;
    assert_eq!(app.get("/levels/insane?from=1").await.status, 404);
    app.stop().await;
}

/// skiddy's `perfect` and `breakable` are booleans: their sum counts the levels with them.
async fn boolean_key_metrics_count_the_levels_with_them(backend: Backend) {
    let app = start(backend).await;
    let mut levels = Vec::new();
    for seed in 1..=3 {
        levels.push(app.get_level("skiddy", "medium", seed).await);
    }
    let stats = app.get_stats("game=skiddy&difficulty=medium").await;
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
    app.stop().await;
}

#[tokio::test]
async fn an_overloaded_pack_is_503_with_retry_after() {
    let app = TestApp::spawn_with(&["--gen-budget-ms", "0"]).await;
    let answer = app.get("/levels/expert?from=1&count=20").await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(answer.headers.contains_key("retry-after"));
    assert!(answer.is_problem());
    app.stop().await;
}

/// `GET /difficulty.svg` draws a dot per rated level with a prior, and the simulated
/// players' solve-rate lines of the game's calibration.
#[tokio::test]
async fn the_difficulty_chart_draws_rated_levels_against_their_prior() {
    let app = start(Backend::Sqlite).await;
    let easy = seed_store(&app).await;
    rate_levels_three_to_five(&app, &easy).await;
    let chart = app.designer_get("/difficulty.svg?game=fruit").await;
    assert_eq!(chart.status, StatusCode::OK, "{}", chart.body);
    assert_eq!(chart.header("content-type"), "image/svg+xml");
    assert_eq!(
        chart.body.matches("<circle").count(),
        3,
        "levels 3, 4 and 5 are rated"
    );
    assert_eq!(
        chart.body.matches("<polyline").count(),
        4,
        "a solve-rate line per skill"
    );
    assert_eq!(
        app.anonymous_get("/difficulty.svg").await.status,
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}
