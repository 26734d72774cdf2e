//! The rollup tables (migration 0005) in SQLite's SQL: one upsert per table, its rows
//! handed over as one JSON array (`json_each`), and the checks and rebuilds of them
//! (their reads: `store/common/mounted/rollup_reads.rs`).

use levelforge_store::StoreError;
use levelforge_store::rollups::{DayRow, Group, GroupRow, MetricRow, ParRow, Rollups, SketchKey};
use levelforge_store_common::Dialect;
use serde_json::{Value, json};
use sqlx::SqliteConnection;

use crate::SqliteStore;
use crate::common::rollup_reads::{load, recompute};

/// Adds `r` to the tables, every row in `shard`: one statement per table (an SQLite
/// INSERT writes one table), its rows handed over as one JSON array, a table without rows
/// skipped. Every figure is a count, a sum or a max, so `x = x + excluded.x` never loses
/// one. (`WHERE true` in the statements tells SQLite's parser that `ON CONFLICT` belongs
/// to the INSERT.)
pub(crate) async fn upsert(
    conn: &mut SqliteConnection,
    r: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    macro_rules! upsert_table {
        ($file:tt, $rows:expr $(, $arg:expr)*) => {
            if let Some(rows) = json_array($rows) {
                sqlx::query_file!($file, $($arg,)* rows)
                    .execute(&mut *conn)
                    .await?;
            }
        };
    }
    upsert_table!(
        "queries/rollups/upsert_groups.sql",
        r.groups.iter().map(group_row),
        shard
    );
    upsert_table!(
        "queries/rollups/upsert_pars.sql",
        r.pars.iter().map(par_row),
        shard
    );
    upsert_table!(
        "queries/rollups/upsert_metrics.sql",
        r.metrics.iter().map(metric_row)
    );
    upsert_table!(
        "queries/rollups/upsert_days.sql",
        r.days.iter().map(day_row),
        shard
    );
    let buckets = r.sketches.iter().filter(|(_, n)| **n != 0);
    upsert_table!(
        "queries/rollups/upsert_sketches.sql",
        buckets.map(sketch_row)
    );
    Ok(())
}

/// The rows as one JSON array, or None without rows.
fn json_array(rows: impl Iterator<Item = Value>) -> Option<String> {
    let rows: Vec<Value> = rows.collect();
    (!rows.is_empty()).then(|| Value::Array(rows).to_string())
}

// Each table's row as the JSON array its upsert reads, in its columns' order.

fn group_row((g, x): (&Group, &GroupRow)) -> Value {
    json!([
        g.game,
        g.difficulty,
        g.version,
        x.levels,
        x.candidates,
        x.par_sum,
        x.states_sum,
        x.states_max,
        x.solutions_unique,
        x.solutions_max
    ])
}

fn par_row(((g, par), x): (&(Group, i64), &ParRow)) -> Value {
    json!([
        g.game,
        g.difficulty,
        g.version,
        par,
        x.levels,
        x.rated_levels,
        x.rating_micros,
        x.plays,
        x.won,
        x.moves_over_par
    ])
}

fn metric_row(((g, name), x): (&(Group, String), &MetricRow)) -> Value {
    json!([
        g.game,
        g.difficulty,
        g.version,
        name,
        x.levels,
        x.total,
        x.max
    ])
}

fn day_row(((day, g), x): (&(String, Group), &DayRow)) -> Value {
    json!([
        day,
        g.game,
        g.difficulty,
        g.version,
        x.plays,
        x.won,
        x.moves_over_par
    ])
}

fn sketch_row(((measure, day, g, bucket), n): (&SketchKey, &i64)) -> Value {
    json!([measure, day, g.game, g.difficulty, g.version, bucket, n])
}

impl SqliteStore {
    /// The differences between the rollups and a recomputation from the raw rows, read
    /// in one snapshot (a read transaction in write-ahead-log mode is one).
    pub(crate) async fn check_rollups(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let stored = load(&mut tx).await?;
        let expected = recompute(&mut tx).await?;
        tx.rollback().await?;
        Ok(stored.differences(&expected))
    }

    /// Rebuilds the rollups from the raw rows; the transaction holds the write lock from
    /// its start, so no level or play is written meanwhile.
    pub(crate) async fn rebuild_rollups(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.begin_write().await?;
        let stored = load(&mut tx).await?;
        let expected = recompute(&mut tx).await?;
        sqlx::query!("DELETE FROM stats_groups")
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM stats_pars")
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM stats_metrics")
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM stats_days")
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM stats_sketches")
            .execute(&mut *tx)
            .await?;
        upsert(&mut tx, &expected, 0).await?;
        tx.commit().await?;
        Ok(stored.differences(&expected))
    }
}
