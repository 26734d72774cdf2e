//! The statistics rollups against a recomputation from the raw rows: random levels and
//! plays stored through the API (on PostgreSQL by two servers at once), then the rollups
//! must equal a from-scratch recomputation exactly, `/stats` must agree with the raw rows
//! (exact counts and sums, percentiles within 1 %), and the backfill of migrations
//! 0006 and 0007 must build the same rollups as the service does.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::join_all;
use proptest::prelude::*;
use serde_json::{Value, json};
use sqlx::Row;

use crate::helpers::{TestApp, TestDatabase, client};

/// Plans post up to 120 plays from one address: no per-client plays limit here.
const SERVE_FLAGS: &[&str] = &[
    "--gen-queue-wait-ms",
    "60000",
    "--rate-limit-plays-per-min",
    "0",
];

/// Levels the plans draw from: quick to generate.
const LEVELS: [(&str, &str, u64); 8] = [
    ("fruit", "easy", 1),
    ("fruit", "easy", 2),
    ("fruit", "easy", 3),
    ("fruit", "medium", 1),
    ("fruit", "medium", 2),
    ("hopper", "easy", 1),
    ("hopper", "easy", 2),
    ("skiddy", "easy", 1),
];

/// One play: which level, which client (None: anonymous), whether it replays the
/// solution (won) or only its first move, the time it reports, and which server takes it.
#[derive(Clone, Debug)]
struct Play {
    level: usize,
    client: Option<u8>,
    wins: bool,
    time_ms: Option<u32>,
    second_server: bool,
}

fn plays() -> impl Strategy<Value = Vec<Play>> {
    prop::collection::vec(
        (
            0..LEVELS.len(),
            prop::option::of(0u8..6),
            any::<bool>(),
            prop::option::of(0u32..200_000),
            any::<bool>(),
        )
            .prop_map(|(level, client, wins, time_ms, second_server)| Play {
                level,
                client,
                wins,
                time_ms,
                second_server,
            }),
        30..120,
    )
}

fn level_path((game, tier, seed): (&str, &str, u64)) -> String {
    format!("/levels/{tier}/{seed}?game={game}")
}

/// Stores every level (each through either server), then posts the plays concurrently.
async fn store_plan(servers: &[&TestApp], plan: &[Play]) {
    let fetches = LEVELS.iter().enumerate().map(|(i, &level)| {
        let server = servers[i % servers.len()];
        async move {
            let response = client()
                .get(server.url(&level_path(level)))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()
        }
    });
    let levels: Vec<Value> = join_all(fetches).await;
    // The named clients are established players, so that their first plays move levels.
    for server in servers {
        for client in 0..6 {
            let token = server.named_player(&format!("player-{client}")).await;
            for game in ["fruit", "hopper", "skiddy"] {
                server.establish(&token, game).await;
            }
        }
    }
    let posts = plan.iter().map(|play| {
        let server = servers[usize::from(play.second_server) % servers.len()];
        let (game, tier, seed) = LEVELS[play.level];
        let solution = levels[play.level]["solution"].as_str().unwrap();
        let moves = if play.wins { solution } else { &solution[..1] };
        let body = json!({
            "solved": play.wins,
            "moves": moves,
            "time_ms": play.time_ms,
            "client": play.client.map(|c| format!("player-{c}")),
        });
        async move {
            let answer = server.post_play(game, tier, seed, &body).await;
            assert_eq!(answer.status, 201, "{}", answer.body);
        }
    });
    join_all(posts).await;
}

/// The nearest-rank value at `per_mille` of sorted values.
fn nearest_rank(sorted: &[i64], per_mille: usize) -> Option<i64> {
    let rank = (per_mille * sorted.len()).div_ceil(1000).max(1);
    sorted.get(rank - 1).copied()
}

fn assert_within_one_percent(got: &Value, exact: Option<i64>, what: &str) {
    match exact {
        None => assert!(got.is_null(), "{what}: {got}"),
        Some(exact) => {
            let got = got.as_f64().unwrap_or_else(|| panic!("{what}: {got}"));
            let error = (got - exact as f64).abs();
            assert!(
                error <= 0.01 * exact as f64,
                "{what}: {got} vs exact {exact}"
            );
        }
    }
}

async fn column(pool: &sqlx::AnyPool, sql: &str, game: &str, tier: &str) -> Vec<i64> {
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .bind(game.to_string())
        .bind(tier.to_string())
        .fetch_all(pool)
        .await
        .unwrap();
    let mut values: Vec<i64> = rows.iter().map(|r| r.get::<i64, _>(0)).collect();
    values.sort_unstable();
    values
}

/// `/stats` against the raw rows of each group: counts exact, percentiles within 1 %.
async fn stats_agree_with_raw_rows(server: &TestApp, url: &str) {
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let stats: Value = client()
        .get(server.url("/stats"))
        .bearer_auth(&server.designer_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let groups = stats["groups"].as_array().unwrap();
    let mut seen = BTreeMap::new();
    for &(game, tier, _) in &LEVELS {
        *seen.entry((game, tier)).or_insert(0) += 1;
    }
    assert_eq!(groups.len(), seen.len(), "{stats}");
    for g in groups {
        let (game, tier) = (
            g["game"].as_str().unwrap(),
            g["difficulty"].as_str().unwrap(),
        );
        let levels =
            |c: &str| format!("SELECT {c} FROM levels WHERE game = $1 AND difficulty = $2");
        let pars = column(&pool, &levels("par"), game, tier).await;
        assert_eq!(g["levels"], pars.len(), "{g}");
        assert_eq!(g["par"]["p50"].as_i64(), nearest_rank(&pars, 500), "{g}");
        let attempts: i64 = column(&pool, &levels("attempts"), game, tier)
            .await
            .iter()
            .sum();
        assert_eq!(g["candidates"], attempts);
        for measure in ["generate_ms", "solve_ms"] {
            let values = column(&pool, &levels(measure), game, tier).await;
            for (p, per_mille) in [("p50", 500), ("p95", 950), ("p99", 990)] {
                let what = format!("{game} {tier} {measure} {p}");
                assert_within_one_percent(&g[measure][p], nearest_rank(&values, per_mille), &what);
            }
        }
        let statuses = column(
            &pool,
            "SELECT CASE WHEN status = 'won' THEN 1 ELSE 0 END FROM plays \
             WHERE game = $1 AND difficulty = $2",
            game,
            tier,
        )
        .await;
        assert_eq!(g["plays"]["count"], statuses.len(), "{g}");
        assert_eq!(g["plays"]["won"], statuses.iter().sum::<i64>(), "{g}");
        let times = column(
            &pool,
            "SELECT time_ms FROM plays WHERE game = $1 AND difficulty = $2 \
             AND status = 'won' AND time_ms IS NOT NULL",
            game,
            tier,
        )
        .await;
        let what = format!("{game} {tier} time to solve");
        assert_within_one_percent(
            &g["plays"]["time_to_solve_ms_p50"],
            nearest_rank(&times, 500),
            &what,
        );
        let rated: i64 = column(
            &pool,
            "SELECT CASE WHEN rated_plays > 0 THEN 1 ELSE 0 END FROM levels \
             WHERE game = $1 AND difficulty = $2",
            game,
            tier,
        )
        .await
        .iter()
        .sum();
        assert_eq!(g["ratings"]["rated_levels"], rated, "{g}");
        assert_eq!(g["trend"], json!([]), "no trend without since/until");
    }
    pool.close().await;
}

/// Empties the rollups and refills them as a database upgraded from before them is:
/// migration 0006's backfill on the tables of 0005, then 0007's change of them.
async fn backfill(url: &str) {
    let (backfill, plays_per_par) = if url.starts_with("sqlite:") {
        (
            include_str!("../../store/sqlite/migrations/0006_stats_backfill.sql"),
            include_str!("../../store/sqlite/migrations/0007_stats_plays_per_par.sql"),
        )
    } else {
        (
            include_str!("../../store/postgres/migrations/0006_stats_backfill.sql"),
            include_str!("../../store/postgres/migrations/0007_stats_plays_per_par.sql"),
        )
    };
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let mut tx = pool.begin().await.unwrap();
    let mut statements: Vec<String> = [
        "stats_groups",
        "stats_pars",
        "stats_metrics",
        "stats_days",
        "stats_sketches",
    ]
    .iter()
    .map(|table| format!("DELETE FROM {table}"))
    .collect();
    // Back to the columns of 0005, which 0007 changes.
    for column in [
        "rated_levels",
        "rating_micros",
        "plays",
        "won",
        "moves_over_par",
    ] {
        statements.push(format!(
            "ALTER TABLE stats_groups ADD COLUMN {column} BIGINT NOT NULL DEFAULT 0"
        ));
    }
    statements.push("ALTER TABLE stats_pars DROP COLUMN moves_over_par".into());
    for sql in statements {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    for sql in [backfill, plays_per_par] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    pool.close().await;
}

/// Plays on earlier days, written straight into the table (the API stamps today).
async fn add_old_plays(url: &str) {
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let stamp = |day: &str| {
        if url.starts_with("sqlite:") {
            format!("'{day} 12:00:00'")
        } else {
            format!("TIMESTAMPTZ '{day} 23:59:59+00'")
        }
    };
    for (day, status, time) in [
        ("2026-01-02", "won", 5000),
        ("2026-01-02", "lost", 7000),
        ("2026-01-05", "won", 900),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves, moves_used, \
             time_ms, created_at) SELECT game, difficulty, seed, {won}, '{status}', '', par, {time}, {at} \
             FROM levels WHERE game = 'fruit' AND difficulty = 'easy'",
            won = if url.starts_with("sqlite:") { "1" } else { "TRUE" },
            at = stamp(day),
        )))
        .execute(&pool)
        .await
        .unwrap();
    }
    pool.close().await;
}

async fn assert_rollups_match(url: &str) {
    let store = levelforge::service::store::connect(url, 2).await.unwrap();
    let differences = store.check_rollups().await.unwrap();
    assert!(differences.is_empty(), "{differences:#?}");
    store.close().await;
}

/// The whole check on one database: the plan through `servers`, then the comparisons.
async fn check_plan(database: &Arc<TestDatabase>, plan: &[Play], two_servers: bool) {
    let url = database.url.as_str();
    let first = TestApp::on(database, SERVE_FLAGS).await;
    let second = if two_servers {
        Some(TestApp::on(database, SERVE_FLAGS).await)
    } else {
        None
    };
    let servers: Vec<&TestApp> = std::iter::once(&first).chain(second.as_ref()).collect();
    store_plan(&servers, plan).await;
    assert_rollups_match(url).await;
    stats_agree_with_raw_rows(&first, url).await;

    // The backfill builds the same rollups, days before today included.
    add_old_plays(url).await;
    backfill(url).await;
    assert_rollups_match(url).await;
    let window: Value = client()
        .get(first.url("/stats?game=fruit&difficulty=easy&since=2026-01-01&until=2026-01-05"))
        .bearer_auth(&first.designer_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let group = &window["groups"][0];
    let days: Vec<&str> = group["trend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["day"].as_str().unwrap())
        .collect();
    assert_eq!(days, ["2026-01-02", "2026-01-05"], "{group}");
    // Three fruit easy levels, one play each per (day, status) above.
    assert_eq!(group["plays"]["count"], 9, "{group}");
    assert_eq!(group["plays"]["won"], 6, "{group}");
    assert_eq!(group["trend"][0]["solve_rate"].as_f64(), Some(0.5));

    if let Some(second) = second {
        second.stop().await;
    }
    first.stop().await;
}

fn run(future: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    #[cfg_attr(
        not(feature = "test-postgres"),
        ignore = "needs PostgreSQL: scripts/test.sh sets it up"
    )]
    fn rollups_match_a_recomputation_with_two_servers_on_postgres(plan in plays()) {
        run(async {
            check_plan(&TestDatabase::postgres().await, &plan, true).await;
        });
    }

    #[test]
    fn rollups_match_a_recomputation_on_sqlite(plan in plays()) {
        run(async {
            check_plan(&TestDatabase::sqlite(), &plan, false).await;
        });
    }
}

/// `levelforge stats --recompute` repairs rollups that drifted, and says how they differed.
#[tokio::test]
async fn recompute_reports_and_repairs_a_drift() {
    let database = TestDatabase::sqlite();
    let url = database.url.clone();
    let server = TestApp::on(&database, &[]).await;
    let response = client()
        .get(server.url("/levels/easy/1?game=fruit"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    server.stop().await;
    let store = levelforge::service::store::connect(&url, 2).await.unwrap();
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    sqlx::query("UPDATE stats_groups SET levels = levels + 5")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let found = store.check_rollups().await.unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("stats_groups"), "{}", found[0]);
    assert_eq!(store.rebuild_rollups().await.unwrap(), found);
    assert!(store.check_rollups().await.unwrap().is_empty());
    store.close().await;
}
