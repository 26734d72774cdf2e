//! Collections: publishing proves every entry, versions never change (on every replica),
//! anyone reads them, only a designer or admin changes them, and a player sees their
//! progress, which erasure takes away.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Answer, Backend, TestApp, TestDatabase};

/// Hand-worked fruit boards. One tilt, left or right, brings the pair together: par 1.
fn one_tilt() -> Value {
    json!({"game": "fruit", "width": 6, "height": 3,
        "grid": ["######", "#a..a#", "######"], "one_ways": [], "anteaters": []})
}

/// Every tilt drives a fruit into the water: no solution.
fn unsolvable() -> Value {
    json!({"game": "fruit", "width": 7, "height": 3,
        "grid": ["#######", "#~a~a~#", "#######"], "one_ways": [], "anteaters": []})
}

fn draft(entries: Value) -> Value {
    json!({"title": "First steps", "game": "fruit", "entries": entries})
}

async fn publish(app: &TestApp, slug: &str, entries: Value) -> Answer {
    app.designer_put(&format!("/collections/{slug}"), &draft(entries))
        .await
}

async fn published(app: &TestApp, slug: &str, entries: Value) -> Value {
    let answer = publish(app, slug, entries).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.json()
}

async fn a_designer_publishes_and_anyone_reads(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let entries = json!([{"difficulty": "easy", "seed": 1}, {"level": one_tilt()},
        {"difficulty": "medium", "seed": "2"}]);
    let answer = publish(&app, "first-steps", entries).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    assert_eq!(answer.header("location"), "/collections/first-steps/v/1");
    let manifest = answer.json();
    assert_eq!(
        (manifest["version"].clone(), manifest["size"].clone()),
        (json!(1), json!(3))
    );
    let made = &manifest["entries"][1];
    assert_eq!(
        (made["n"].clone(), made["difficulty"].clone()),
        (json!(2), json!("custom"))
    );
    assert_eq!(made["par"], 1);

    let listed = app.get_json("/collections").await;
    assert_eq!(listed["collections"][0]["slug"], "first-steps");
    assert_eq!(listed["collections"][0]["size"], 3);
    let latest = app.anonymous_get("/collections/first-steps").await;
    assert_eq!(
        latest.body, answer.body,
        "the latest is the published bytes"
    );
    assert_eq!(latest.header("cache-control"), "public, max-age=60");
    let version = app.anonymous_get("/collections/first-steps/v/1").await;
    assert_eq!(version.body, answer.body);
    assert!(version.header("cache-control").contains("immutable"));

    // The n-th level is the level its own address serves, byte for byte, ETag and all.
    let seed = made["seed"].as_u64().unwrap();
    let own = app
        .anonymous_get(&format!("/levels/custom/{seed}?game=fruit"))
        .await;
    let second = app.anonymous_get("/collections/first-steps/v/1/2").await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_eq!(
        (second.body.clone(), second.header("etag")),
        (own.body.clone(), own.header("etag"))
    );
    let level = second.json();
    assert_eq!(
        (level["difficulty"].clone(), level["par"].clone()),
        (json!("custom"), json!(1))
    );
    let etag = second.header("etag").to_string();
    let again = app
        .request(
            Method::GET,
            "/collections/first-steps/v/1/2",
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    let generated = app.get_level("fruit", "easy", 1).await;
    let first = app.get_json("/collections/first-steps/v/1/1").await;
    assert_eq!(first, generated);
    for missing in ["/v/1/0", "/v/1/4", "/v/2", "/v/2/1", "/v/01", "/v/x/1"] {
        let answer = app
            .anonymous_get(&format!("/collections/first-steps{missing}"))
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{missing}");
        assert!(answer.is_problem());
    }
    plays_work_on_a_hand_made_level(&app, seed).await;

    // The same document in another collection is the same level.
    let other = published(&app, "again", json!([{"level": one_tilt()}])).await;
    assert_eq!(other["entries"][0]["seed"], seed);
    app.stop().await;
}

/// Check, hint, preview and a rated play, at the level's own address.
async fn plays_work_on_a_hand_made_level(app: &TestApp, seed: u64) {
    let at = |what: &str| format!("/levels/custom/{seed}{what}?game=fruit");
    let check = app
        .anonymous_post(&at("/check"), &json!({"moves": "L"}))
        .await;
    assert_eq!(check.status, StatusCode::OK, "{}", check.body);
    assert_eq!(check.json()["status"], "won");
    let hint = app
        .anonymous_post(&at("/hint"), &json!({"moves": ""}))
        .await;
    assert_eq!(hint.status, StatusCode::OK, "{}", hint.body);
    let preview = app.anonymous_get(&at("/preview.svg")).await;
    assert_eq!(preview.header("content-type"), "image/svg+xml");
    let player = app.new_player().await;
    let play = json!({"solved": true, "moves": "L", "time_ms": 800});
    let played = app
        .post_play_as(&player.token, "fruit", "custom", seed, &play)
        .await;
    assert_eq!(played.status, StatusCode::CREATED, "{}", played.body);
    assert_eq!(played.json()["rated"], true);
    // A custom key that was never published is no level, and is never generated.
    let unknown = app.anonymous_get("/levels/custom/12345?game=fruit").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let pack = app
        .anonymous_get("/levels/custom?game=fruit&from=1&count=2")
        .await;
    assert_eq!(pack.status, StatusCode::NOT_FOUND);
}

/// A published version's bytes never change: not when the collection is published again,
/// not on another replica, not once unpublished.
async fn a_version_never_changes(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let replica = TestApp::on(&database, &[]).await;
    published(&app, "tour", json!([{"difficulty": "easy", "seed": 3}])).await;
    let first = app.anonymous_get("/collections/tour/v/1").await;
    let first_level = app.anonymous_get("/collections/tour/v/1/1").await;
    let second = published(
        &app,
        "tour",
        json!([{"level": one_tilt()},
        {"difficulty": "easy", "seed": 3}]),
    )
    .await;
    assert_eq!(second["version"], 2);
    for reader in [&app, &replica] {
        let again = reader.anonymous_get("/collections/tour/v/1").await;
        assert_eq!(
            (again.body.as_str(), again.header("etag")),
            (first.body.as_str(), first.header("etag"))
        );
        let level = reader.anonymous_get("/collections/tour/v/1/1").await;
        assert_eq!(level.body, first_level.body);
        assert_eq!(reader.get_json("/collections/tour").await["version"], 2);
    }
    let deleted = app
        .request(
            Method::DELETE,
            "/collections/tour",
            Some(&app.designer_key),
            &[],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.body);
    assert_eq!(
        replica.anonymous_get("/collections/tour").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        replica.get_json("/collections").await["collections"],
        json!([])
    );
    let kept = replica.anonymous_get("/collections/tour/v/1").await;
    assert_eq!(
        kept.body, first.body,
        "clients may hold it: it stays readable"
    );
    let again = app
        .request(
            Method::DELETE,
            "/collections/tour",
            Some(&app.designer_key),
            &[],
        )
        .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    let relisted = published(&app, "tour", json!([{"difficulty": "easy", "seed": 3}])).await;
    assert_eq!(relisted["version"], 3);
    replica.stop().await;
    app.stop().await;
}

/// The whole version is refused, naming the entry and the rule, and nothing is published.
async fn an_unsolvable_edit_is_refused_with_its_rule(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let refused = publish(
        &app,
        "broken",
        json!([{"difficulty": "easy", "seed": 1},
        {"level": unsolvable()}]),
    )
    .await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.body
    );
    let problem = refused.json();
    assert_eq!(problem["rule"], "level.unsolvable");
    assert!(
        problem["detail"].as_str().unwrap().starts_with("entry 2:"),
        "{problem}"
    );
    let mut one_fruit = one_tilt();
    one_fruit["grid"][1] = json!("#a...#");
    let invalid = publish(&app, "broken", json!([{"level": one_fruit}])).await;
    assert_eq!(
        invalid.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        invalid.body
    );
    assert!(
        invalid.json()["rule"]
            .as_str()
            .unwrap()
            .starts_with("fruit."),
        "{}",
        invalid.body
    );
    let malformed = publish(&app, "broken", json!([{"level": {"grid": 3}}])).await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
    assert!(
        malformed.json()["detail"]
            .as_str()
            .unwrap()
            .starts_with("entry 1:")
    );
    assert_eq!(
        app.anonymous_get("/collections/broken").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.get_json("/collections").await["collections"], json!([]));
    app.stop().await;
}

/// Without a designer or admin key nothing changes; bad input is 400 before any work.
async fn an_attacker_cannot_publish_or_unpublish(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    published(&app, "kept", json!([{"difficulty": "easy", "seed": 1}])).await;
    let player = app.new_player().await;
    for token in [None, Some("lfk_forged"), Some(player.token.as_str())] {
        let put = app
            .request(Method::PUT, "/collections/kept", token, &[])
            .await;
        let delete = app
            .request(Method::DELETE, "/collections/kept", token, &[])
            .await;
        let expected = if token == Some(player.token.as_str()) {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::UNAUTHORIZED
        };
        assert_eq!(
            (put.status, delete.status),
            (expected, expected),
            "{token:?}"
        );
    }
    assert_eq!(app.get_json("/collections/kept").await["version"], 1);
    let too_many: Vec<Value> = (0..201)
        .map(|seed| json!({"difficulty": "easy", "seed": seed}))
        .collect();
    for (slug, entries) in [
        ("Bad_Slug", json!([{"difficulty": "easy", "seed": 1}])),
        ("-dash", json!([{"difficulty": "easy", "seed": 1}])),
        ("fine", json!([])),
        ("fine", json!(too_many)),
        ("fine", json!([{"difficulty": "easy"}])),
        (
            "fine",
            json!([{"difficulty": "easy", "seed": 1, "level": one_tilt()}]),
        ),
        ("fine", json!([{"difficulty": "easy", "seed": -1}])),
        ("fine", json!([{"level": {"game": "skiddy"}}])),
    ] {
        let answer = publish(&app, slug, entries).await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{slug}: {}",
            answer.body
        );
        assert!(answer.is_problem());
    }
    let progress = app.anonymous_get("/players/me/collections/kept").await;
    assert_eq!(progress.status, StatusCode::UNAUTHORIZED);
    app.stop().await;
}

/// A player gets the entries in order: each one played moves `next` on; another player
/// sees none of it, and erasure leaves no trace.
async fn a_player_gets_entries_in_order(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let manifest = published(
        &app,
        "path",
        json!([{"difficulty": "easy", "seed": 4},
        {"level": one_tilt()}, {"difficulty": "easy", "seed": 5}]),
    )
    .await;
    let player = app.new_player().await;
    // Established, so that its plays move the entries' ratings (the evidence rule).
    app.establish(&player.token, "fruit").await;
    for n in 1..=3u64 {
        let progress = app
            .get_as(&player.token, "/players/me/collections/path")
            .await;
        assert_eq!(progress.status, StatusCode::OK, "{}", progress.body);
        let progress = progress.json();
        assert_eq!(progress["next"], n);
        assert_eq!(progress["next_href"], format!("/collections/path/v/1/{n}"));
        let entry = &manifest["entries"][n as usize - 1];
        let level = app.get_json(entry["href"].as_str().unwrap()).await;
        let play = json!({"solved": true, "moves": level["solution"], "time_ms": 900});
        let path = entry["level"].as_str().unwrap().replace('?', "/plays?");
        let played = app.post_as(&player.token, &path, &play).await;
        assert_eq!(
            played.status,
            StatusCode::CREATED,
            "{path}: {}",
            played.body
        );
    }
    let done = app
        .get_as(&player.token, "/players/me/collections/path")
        .await
        .json();
    assert_eq!(done["next"], Value::Null);
    assert!(
        done["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["played"] == true && e["won"] == true)
    );
    entry_stats_count_the_plays(&app).await;
    let stranger = app.new_player().await;
    let theirs = app
        .get_as(&stranger.token, "/players/me/collections/path")
        .await
        .json();
    assert_eq!(theirs["next"], 1);
    let erased = app
        .request(Method::DELETE, "/players/me", Some(&player.token), &[])
        .await;
    assert_eq!(erased.status, StatusCode::NO_CONTENT);
    let gone = app
        .get_as(&player.token, "/players/me/collections/path")
        .await;
    assert_eq!(gone.status, StatusCode::UNAUTHORIZED);
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
    let named: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM plays WHERE client = '{}'",
        player.id
    )))
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(named, 0, "no play names the erased player");
    app.stop().await;
}

/// After one won play of each entry: per entry its play, its rating, and the curve.
async fn entry_stats_count_the_plays(app: &TestApp) {
    let stats = app.designer_json("/stats/collections/path?margin=0").await;
    assert_eq!(
        (stats["version"].clone(), stats["margin"].clone()),
        (json!(1), json!(0))
    );
    let entries = stats["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for (i, entry) in entries.iter().enumerate() {
        assert_eq!(entry["n"], i + 1);
        assert_eq!(
            (entry["plays"].clone(), entry["won"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(
            (entry["solve_rate"].clone(), entry["rated_plays"].clone()),
            (json!(1.0), json!(1))
        );
        assert_eq!(entry["moves_over_par_mean"], 0.0);
    }
    let ratings: Vec<f64> = entries
        .iter()
        .map(|e| e["rating"].as_f64().unwrap())
        .collect();
    let flagged: Vec<bool> = entries
        .iter()
        .map(|e| e["harder_than_a_later_entry"].as_bool().unwrap())
        .collect();
    let expected: Vec<bool> = (0..3)
        .map(|i| ratings[i + 1..].iter().any(|r| ratings[i] - r > 0.05))
        .collect();
    assert_eq!(flagged, expected, "{ratings:?}");
    let curve = app.designer_get("/stats/collections/path/curve.svg").await;
    assert_eq!(curve.header("content-type"), "image/svg+xml");
    assert_eq!(curve.body.matches("<circle").count(), 3);
    for path in [
        "/stats/collections/path",
        "/stats/collections/path/curve.svg",
    ] {
        assert_eq!(
            app.anonymous_get(path).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    let missing = app.designer_get("/stats/collections/path?version=2").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

on_both_backends!(
    a_designer_publishes_and_anyone_reads,
    a_version_never_changes,
    an_unsolvable_edit_is_refused_with_its_rule,
    an_attacker_cannot_publish_or_unpublish,
    a_player_gets_entries_in_order,
);
