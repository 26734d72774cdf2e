//! `levelforge copy-store` on real databases: every table of the migrated schema has a
//! fate (copied, rebuilt or skipped); a SQLite store moved to PostgreSQL answers as
//! before (row counts, `/stats`, keys, player tokens, idempotent plays); moved back, every
//! copied row is what it was; a copy stopped halfway and run again with `--resume` ends
//! equal to the source.

use std::ops::ControlFlow;
use std::sync::Arc;

use levelforge::commands::copy_store::{self, Outcome};
use levelforge::service::store::copy::{CopyStore, DERIVED_COLUMNS, Fate, SCHEMA, Table};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::{Row, TypeInfo, ValueRef};

use crate::helpers::{Backend, Player, TestApp, TestDatabase, client};

on_both_backends!(
    every_table_of_the_schema_is_copied_rebuilt_or_skipped,
    a_copy_stopped_halfway_and_resumed_ends_equal,
);

/// The tables and their columns (sorted) of the migrated schema at `url`.
async fn schema(url: &str) -> Vec<(String, Vec<String>)> {
    copy_store::open_target(url).await.unwrap(); // applies the migrations
    let (tables, columns) = if url.starts_with("sqlite:") {
        (
            "SELECT name FROM sqlite_master WHERE type = 'table'",
            "SELECT name FROM pragma_table_info($1)",
        )
    } else {
        (
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = current_schema()",
            "SELECT column_name::text FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1",
        )
    };
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let names: Vec<String> = sqlx::query_scalar(tables).fetch_all(&pool).await.unwrap();
    let mut schema = Vec::new();
    for name in names {
        let mut cols: Vec<String> = sqlx::query_scalar(columns)
            .bind(&name)
            .fetch_all(&pool)
            .await
            .unwrap();
        cols.sort();
        schema.push((name, cols));
    }
    pool.close().await;
    schema
}

async fn every_table_of_the_schema_is_copied_rebuilt_or_skipped(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let schema = schema(&database.url).await;
    for (table, columns) in &schema {
        let fate = SCHEMA
            .iter()
            .find(|(name, _)| name == table)
            .map(|(_, f)| f);
        match fate {
            None => panic!(
                "table `{table}` is in the schema but not in levelforge_store::copy::SCHEMA: \
                 copy it (a Table and its row type), or say why it is rebuilt or skipped"
            ),
            Some(Fate::Copied(copied)) => {
                let made_by_the_target = |column: &String| {
                    DERIVED_COLUMNS
                        .iter()
                        .any(|(t, c, why)| t == table && c == column && !why.is_empty())
                };
                let carried: Vec<&String> =
                    columns.iter().filter(|c| !made_by_the_target(c)).collect();
                assert_eq!(
                    copied.columns().iter().collect::<Vec<_>>(),
                    carried,
                    "`{table}`: the columns copy-store carries (its row type) and the schema's"
                )
            }
            Some(Fate::Rebuilt(why) | Fate::Skipped(why)) => assert!(!why.is_empty()),
        }
    }
    for table in Table::ALL {
        assert!(
            schema.iter().any(|(name, _)| name == table.name()),
            "copy-store copies `{}`, which the schema lacks",
            table.name()
        );
    }
}

/// What the fill of a store left to check on its copy.
struct Filled {
    players: Vec<Player>,
    revoked: String,
    /// A play sent with an Idempotency-Key: its path, key, body, token and first answer.
    idempotent: (String, String, Value, String, String),
}

/// Levels of every game (seed 0 among them: the lowest stored seed), rated and anonymous
/// plays, one with an Idempotency-Key, a next level served, a dashboard session, a
/// collection in two versions with a hand-made level, and a revoked key, all through the
/// HTTP API and the key command.
async fn fill(app: &TestApp, database: &TestDatabase) -> Filled {
    for (game, tier, seed) in [
        ("skiddy", "hard", 7),
        ("hopper", "medium", 3),
        ("hashi", "easy", 2),
        ("tetropica", "easy", 5),
        ("fruit", "easy", 0),
    ] {
        app.get_level(game, tier, seed).await;
    }
    let mut players = Vec::new();
    for _ in 0..3 {
        players.push(app.new_player().await);
    }
    for seed in 1..=6u64 {
        let level = app.get_level("fruit", "easy", seed).await;
        let solution = level["solution"].as_str().unwrap();
        for (n, player) in players.iter().enumerate() {
            let moves = if (seed as usize + n).is_multiple_of(3) {
                "U"
            } else {
                solution
            };
            let play = json!({"solved": moves == solution, "moves": moves, "time_ms": 900 * seed});
            let answer = app
                .post_play_as(&player.token, "fruit", "easy", seed, &play)
                .await;
            assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        }
    }
    let anonymous = json!({"solved": false, "moves": "", "time_ms": 100});
    app.post_play("skiddy", "hard", 7, &anonymous).await;
    let served = app
        .get_as(&players[0].token, "/players/me/next?game=fruit")
        .await;
    assert_eq!(served.status, StatusCode::OK, "{}", served.body);
    let session = app
        .anonymous_post("/session", &json!({"key": app.designer_key}))
        .await;
    assert!(session.status.is_success(), "{}", session.body);
    let collection = json!({"title": "Copied", "game": "fruit", "entries": [
        {"difficulty": "easy", "seed": 1},
        {"level": {"game": "fruit", "width": 6, "height": 3,
            "grid": ["######", "#a..a#", "######"], "one_ways": [], "anteaters": []}},
    ]});
    for _ in 0..2 {
        let published = app.designer_put("/collections/copied", &collection).await;
        assert_eq!(published.status, StatusCode::CREATED, "{}", published.body);
    }
    let revoked = revoked_key(database).await;
    let idempotent = idempotent_play(app, &players[1]).await;
    Filled {
        players,
        revoked,
        idempotent,
    }
}

/// A key made and revoked, as `levelforge keys create` and `keys revoke` do.
async fn revoked_key(database: &TestDatabase) -> String {
    use levelforge::service::credentials::Role;
    let store = levelforge::service::store::connect(&database.url, 1)
        .await
        .unwrap();
    let key = levelforge::service::credentials::new_key(&*store, Role::Admin, "leaver", None)
        .await
        .unwrap();
    store
        .revoke_key(&key.id, 1)
        .await
        .unwrap()
        .expect("revoked");
    store.close().await;
    key.token
}

/// Posts a play with an Idempotency-Key; what it takes to repeat it.
async fn idempotent_play(
    app: &TestApp,
    player: &Player,
) -> (String, String, Value, String, String) {
    let path = "/levels/medium/3/plays?game=hopper".to_string();
    let level = app.get_level("hopper", "medium", 3).await;
    let body = json!({"solved": true, "moves": level["solution"], "time_ms": 4000});
    let key = "copy-store-idempotent-1".to_string();
    let answer = post_with_key(app, &path, &key, &body, &player.token).await;
    assert_eq!(answer.0, StatusCode::CREATED, "{}", answer.1);
    (path, key, body, player.token.clone(), answer.1)
}

async fn post_with_key(
    app: &TestApp,
    path: &str,
    key: &str,
    body: &Value,
    token: &str,
) -> (StatusCode, String) {
    let response = client()
        .post(app.url(path))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

/// The `/stats` answers a designer sees, overall and per game, JSON and CSV.
async fn stats_answers(app: &TestApp) -> Vec<String> {
    let mut answers = Vec::new();
    for query in [
        "",
        "game=fruit",
        "game=hopper&difficulty=medium",
        "format=csv",
    ] {
        let answer = app.designer_get(&format!("/stats?{query}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{query}: {}", answer.body);
        answers.push(answer.body);
    }
    answers
}

/// Every copied row of a SQLite store, table by table, each value exactly as stored.
async fn sqlite_rows(url: &str) -> Vec<(Table, Vec<Vec<String>>)> {
    let pool = sqlx::SqlitePool::connect(url).await.unwrap();
    let mut all = Vec::new();
    for table in Table::ALL {
        let columns = table.columns().join(", ");
        let query = format!("SELECT {columns} FROM {} ORDER BY {columns}", table.name());
        let rows = sqlx::query(sqlx::AssertSqlSafe(query))
            .fetch_all(&pool)
            .await
            .unwrap();
        all.push((table, rows.iter().map(row_values).collect()));
    }
    pool.close().await;
    all
}

/// A row's values as text: integers and reals exactly (`{:?}` of the f64), NULL as NULL.
fn row_values(row: &sqlx::sqlite::SqliteRow) -> Vec<String> {
    (0..row.columns().len())
        .map(|i| {
            let raw = row.try_get_raw(i).unwrap();
            if raw.is_null() {
                return "NULL".to_string();
            }
            match raw.type_info().name() {
                "INTEGER" => row.get::<i64, _>(i).to_string(),
                "REAL" => format!("{:?}", row.get::<f64, _>(i)),
                _ => row.get::<String, _>(i),
            }
        })
        .collect()
}

/// The copy as the library runs it, to the end.
async fn copy_all(from: &str, to: &str) {
    let source = copy_store::open_source(from).await.unwrap();
    let target = copy_store::open_target(to).await.unwrap();
    let outcome = copy_store::copy(&*source, &*target, 50, false, |_| ControlFlow::Continue(()));
    assert!(matches!(outcome.await.unwrap(), Outcome::Done(_)));
}

/// `levelforge copy-store` itself, as ops run it.
fn copy_command(from: &str, to: &str, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_levelforge"))
        .args(["copy-store", "--from", from, "--to", to])
        .args(extra)
        .output()
        .unwrap()
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-postgres"),
    ignore = "needs PostgreSQL: scripts/test.sh sets it up"
)]
async fn a_sqlite_store_moved_to_postgres_answers_as_before_and_moves_back_unchanged() {
    let source = TestDatabase::sqlite();
    let app = TestApp::on(&source, &[]).await;
    let filled = fill(&app, &source).await;
    let stats = stats_answers(&app).await;
    let counts = counts_of(&source.url).await;

    let target = TestDatabase::postgres().await;
    let copied = copy_command(&source.url, &target.url, &["--batch-rows", "7"]);
    let stdout = String::from_utf8_lossy(&copied.stdout);
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    let levels_line = ["levels", &counts.levels.to_string(), "rows"];
    assert!(
        stdout.lines().any(|l| l.split_whitespace().eq(levels_line)),
        "{stdout}"
    );
    assert_eq!(counts_of(&target.url).await, counts);

    let back = TestDatabase::sqlite();
    copy_all(&target.url, &back.url).await;
    assert_eq!(sqlite_rows(&back.url).await, sqlite_rows(&source.url).await);

    let moved = TestApp::on(&target, &[]).await;
    assert_eq!(stats_answers(&moved).await, stats);
    the_credentials_still_work(&app, &moved, &filled).await;
    an_idempotent_play_is_not_stored_twice(&moved, &filled).await;
    let again = copy_command(&source.url, &target.url, &[]);
    assert!(!again.status.success(), "a non-empty target is refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
}

async fn counts_of(url: &str) -> levelforge::service::store::copy::TableCounts {
    let store: Arc<dyn CopyStore> = copy_store::open_target(url).await.unwrap();
    let counts = store.table_counts().await.unwrap();
    store.close().await;
    counts
}

/// The source's keys and player tokens, presented to the moved store.
async fn the_credentials_still_work(before: &TestApp, moved: &TestApp, filled: &Filled) {
    let designer = moved.get_as(&before.designer_key, "/stats").await;
    assert_eq!(designer.status, StatusCode::OK, "{}", designer.body);
    for player in &filled.players {
        let was = before.get_as(&player.token, "/players/me").await;
        let is = moved.get_as(&player.token, "/players/me").await;
        assert_eq!(is.status, StatusCode::OK, "{}", is.body);
        assert_eq!(is.json(), was.json());
    }
    let forged = format!("{}x", filled.players[0].token);
    let refused = moved.get_as(&forged, "/players/me").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let revoked = moved.get_as(&filled.revoked, "/stats").await;
    assert_eq!(
        revoked.status,
        StatusCode::UNAUTHORIZED,
        "revoked before the copy"
    );
}

/// A repeat of the idempotent play gets the first answer and stores nothing; a new play
/// gets the id after the copied ones.
async fn an_idempotent_play_is_not_stored_twice(moved: &TestApp, filled: &Filled) {
    let (path, key, body, token, first) = &filled.idempotent;
    let plays_before = moved.get_stats("").await;
    let repeat = post_with_key(moved, path, key, body, token).await;
    assert_eq!(repeat.0, StatusCode::CREATED);
    assert_eq!(&repeat.1, first);
    assert_eq!(moved.get_stats("").await, plays_before);
    let first_id = serde_json::from_str::<Value>(first).unwrap()["id"]
        .as_i64()
        .unwrap();
    let new = post_with_key(moved, path, "copy-store-new-1", body, token).await;
    assert_eq!(new.0, StatusCode::CREATED, "{}", new.1);
    let new_id = serde_json::from_str::<Value>(&new.1).unwrap()["id"]
        .as_i64()
        .unwrap();
    assert!(new_id > first_id, "{new_id} after {first_id}");
}

async fn a_copy_stopped_halfway_and_resumed_ends_equal(backend: Backend) {
    let source = TestDatabase::sqlite();
    let app = TestApp::on(&source, &[]).await;
    fill(&app, &source).await;
    app.stop().await;
    let target = TestDatabase::of(backend).await;
    let from = copy_store::open_source(&source.url).await.unwrap();
    let to = copy_store::open_target(&target.url).await.unwrap();

    let mut batches = 0;
    let stopped = copy_store::copy(&*from, &*to, 4, false, |_| {
        batches += 1;
        if batches == 5 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let Outcome::Stopped(progress) = stopped.await.unwrap() else {
        panic!("the callback stops the copy")
    };
    let source_rows = from.table_counts().await.unwrap().total() as u64;
    assert!(
        0 < progress.rows && progress.rows < source_rows,
        "{progress:?}"
    );
    let written = to.table_counts().await.unwrap().total() as u64;
    assert_eq!(written, progress.rows, "five batches, each committed");

    let refused = copy_store::copy(&*from, &*to, 4, false, |_| ControlFlow::Continue(()));
    let error = refused.await.unwrap_err().to_string();
    assert!(error.contains("not empty"), "{error}");
    let resumed = copy_store::copy(&*from, &*to, 4, true, |_| ControlFlow::Continue(()));
    let Outcome::Done(counts) = resumed.await.unwrap() else {
        panic!("done")
    };
    assert_eq!(counts, from.table_counts().await.unwrap());
    assert!(
        to.check_rollups().await.unwrap().is_empty(),
        "rollups rebuilt"
    );

    let back = TestDatabase::sqlite();
    copy_all(&target.url, &back.url).await;
    assert_eq!(sqlite_rows(&back.url).await, sqlite_rows(&source.url).await);
}
