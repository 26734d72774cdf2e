//! The rollup tables (migration 0005) in PostgreSQL's SQL: one upsert statement for all
//! five tables, fed by arrays, and the checks and rebuilds of them
//! (their reads: `store/common/mounted/rollup_reads.rs`).

use levelforge_store::StoreError;
use levelforge_store::rollups::{Group, Rollups};
use levelforge_store_common::Dialect;
use sqlx::PgConnection;

use crate::PgStore;
use crate::common::rollup_reads::{load, recompute};

/// Adds `rollups` to the tables, every row in `shard`: one statement, one round trip,
/// each table's rows as arrays (`UNNEST`). Every figure is a count, a sum or a max, so
/// `x = x + excluded.x` from any number of writers never loses one; the rows go in key
/// order, so two writers never wait for each other's rows crosswise.
pub(crate) async fn upsert(
    conn: &mut PgConnection,
    rollups: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    let c = Columns::of(rollups);
    sqlx::query_file!(
        "queries/upsert_rollups.sql",
        shard as i32,
        &c.groups.keys.game,
        &c.groups.keys.difficulty,
        &c.groups.keys.version,
        &c.groups.figures[0],
        &c.groups.figures[1],
        &c.groups.figures[2],
        &c.groups.figures[3],
        &c.groups.figures[4],
        &c.groups.figures[5],
        &c.groups.figures[6],
        &c.pars.keys.game,
        &c.pars.keys.difficulty,
        &c.pars.keys.version,
        &c.par,
        &c.pars.figures[0],
        &c.pars.figures[1],
        &c.pars.figures[2],
        &c.pars.figures[3],
        &c.pars.figures[4],
        &c.pars.figures[5],
        &c.metrics.game,
        &c.metrics.difficulty,
        &c.metrics.version,
        &c.metric,
        &c.metric_levels,
        &c.metric_total,
        &c.metric_max,
        &c.day,
        &c.days.keys.game,
        &c.days.keys.difficulty,
        &c.days.keys.version,
        &c.days.figures[0],
        &c.days.figures[1],
        &c.days.figures[2],
        &c.sketch_measure,
        &c.sketch_day,
        &c.sketches.keys.game,
        &c.sketches.keys.difficulty,
        &c.sketches.keys.version,
        &c.sketch_bucket,
        &c.sketches.figures[0],
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The key columns every rollup table has.
#[derive(Default)]
struct GroupColumns {
    game: Vec<String>,
    difficulty: Vec<String>,
    version: Vec<i32>,
}

impl GroupColumns {
    fn push(&mut self, group: &Group) {
        self.game.push(group.game.clone());
        self.difficulty.push(group.difficulty.clone());
        self.version.push(group.version as i32);
    }
}

/// A table's rows as columns: its group keys and `N` integer figures.
struct Table<const N: usize> {
    keys: GroupColumns,
    figures: [Vec<i64>; N],
}

impl<const N: usize> Default for Table<N> {
    fn default() -> Self {
        Table {
            keys: GroupColumns::default(),
            figures: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl<const N: usize> Table<N> {
    fn push(&mut self, group: &Group, figures: [i64; N]) {
        self.keys.push(group);
        for (column, figure) in self.figures.iter_mut().zip(figures) {
            column.push(figure);
        }
    }
}

/// The rollups as one array per column, in key order.
#[derive(Default)]
struct Columns {
    groups: Table<7>,
    pars: Table<6>,
    par: Vec<i32>,
    metrics: GroupColumns,
    metric: Vec<String>,
    metric_levels: Vec<i64>,
    metric_total: Vec<f64>,
    metric_max: Vec<f64>,
    days: Table<3>,
    day: Vec<String>,
    sketches: Table<1>,
    sketch_measure: Vec<String>,
    sketch_day: Vec<String>,
    sketch_bucket: Vec<i32>,
}

impl Columns {
    fn of(r: &Rollups) -> Columns {
        let mut c = Columns::default();
        for (group, g) in &r.groups {
            let figures = [
                g.levels,
                g.candidates,
                g.par_sum,
                g.states_sum,
                g.states_max,
                g.solutions_unique,
                g.solutions_max,
            ];
            c.groups.push(group, figures);
        }
        for ((group, par), p) in &r.pars {
            let figures = [
                p.levels,
                p.rated_levels,
                p.rating_micros,
                p.plays,
                p.won,
                p.moves_over_par,
            ];
            c.pars.push(group, figures);
            c.par.push(*par as i32);
        }
        for ((group, name), m) in &r.metrics {
            c.metrics.push(group);
            c.metric.push(name.clone());
            c.metric_levels.push(m.levels);
            c.metric_total.push(m.total);
            c.metric_max.push(m.max);
        }
        for ((day, group), d) in &r.days {
            c.days.push(group, [d.plays, d.won, d.moves_over_par]);
            c.day.push(day.clone());
        }
        for ((measure, day, group, bucket), &count) in r.sketches.iter().filter(|(_, n)| **n != 0) {
            c.sketches.push(group, [count]);
            c.sketch_measure.push(measure.clone());
            c.sketch_day.push(day.clone());
            c.sketch_bucket.push(*bucket as i32);
        }
        c
    }
}

impl PgStore {
    /// The differences between the rollups and a recomputation from the raw rows, read
    /// in one snapshot (writers may keep writing).
    pub(crate) async fn check_rollups(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query!("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            .execute(&mut *tx)
            .await?;
        let stored = load(&mut tx).await?;
        let expected = recompute(&mut tx).await?;
        tx.rollback().await?;
        Ok(stored.differences(&expected))
    }

    /// Rebuilds the rollups from the raw rows, with writers of levels and plays held off.
    pub(crate) async fn rebuild_rollups(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query!("LOCK TABLE levels, plays IN SHARE MODE")
            .execute(&mut *tx)
            .await?;
        let stored = load(&mut tx).await?;
        let expected = recompute(&mut tx).await?;
        // DELETE, not TRUNCATE: readers of `/stats` keep reading the old rows meanwhile.
        sqlx::query!(
            "WITH groups AS (DELETE FROM stats_groups), pars AS (DELETE FROM stats_pars),
                metrics AS (DELETE FROM stats_metrics), days AS (DELETE FROM stats_days)
            DELETE FROM stats_sketches"
        )
        .execute(&mut *tx)
        .await?;
        upsert(&mut tx, &expected, 0).await?;
        tx.commit().await?;
        Ok(stored.differences(&expected))
    }
}
