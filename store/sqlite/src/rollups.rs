//! The rollup tables (migration 0005) in SQLite's SQL: one upsert per table, its rows
//! handed over as one JSON array (`json_each`), and the reads that load or recompute them.

use futures_util::TryStreamExt;
use levelforge_store::StoreError;
use levelforge_store::rollups::{
    DayTableRow, GroupTableRow, MetricTableRow, ParTableRow, Rollups, SketchTableRow, StoredLevel,
    StoredPlayRow, Tables,
};
use serde_json::{Value, json};
use sqlx::SqliteConnection;

use crate::SqliteStore;

/// Adds `r` to the tables, every row in `shard`. Every figure is a count, a sum or a
/// max, so `x = x + excluded.x` never loses one; a table without rows is skipped.
/// (`WHERE true` tells SQLite's parser that `ON CONFLICT` belongs to the INSERT.)
pub(crate) async fn upsert(
    conn: &mut SqliteConnection,
    r: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    upsert_groups(conn, r, shard).await?;
    upsert_pars(conn, r, shard).await?;
    upsert_metrics(conn, r).await?;
    upsert_days(conn, r, shard).await?;
    upsert_sketches(conn, r).await
}

/// `stats_groups`: a group's level figures.
async fn upsert_groups(
    conn: &mut SqliteConnection,
    r: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    let Some(rows) = rows(r.groups.iter().map(|(g, x)| {
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
    })) else {
        return Ok(());
    };
    sqlx::query!(
        "INSERT INTO stats_groups (game, difficulty, version, shard, levels, candidates,
            par_sum, states_sum, states_max, solutions_unique, solutions_max)
        SELECT value ->> 0, value ->> 1, value ->> 2, ?1, value ->> 3, value ->> 4,
            value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
        FROM json_each(?2) WHERE true
        ON CONFLICT (game, difficulty, version, shard) DO UPDATE SET
            levels = levels + excluded.levels,
            candidates = candidates + excluded.candidates,
            par_sum = par_sum + excluded.par_sum,
            states_sum = states_sum + excluded.states_sum,
            solutions_unique = solutions_unique + excluded.solutions_unique,
            states_max = MAX(states_max, excluded.states_max),
            solutions_max = MAX(solutions_max, excluded.solutions_max)",
        shard,
        rows,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// `stats_pars`: a par's levels, ratings and plays.
async fn upsert_pars(
    conn: &mut SqliteConnection,
    r: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    let Some(rows) = rows(r.pars.iter().map(|((g, par), x)| {
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
    })) else {
        return Ok(());
    };
    sqlx::query!(
        "INSERT INTO stats_pars (game, difficulty, version, par, shard, levels,
            rated_levels, rating_micros, plays, won, moves_over_par)
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?1, value ->> 4,
            value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
        FROM json_each(?2) WHERE true
        ON CONFLICT (game, difficulty, version, par, shard) DO UPDATE SET
            levels = levels + excluded.levels,
            rated_levels = rated_levels + excluded.rated_levels,
            rating_micros = rating_micros + excluded.rating_micros,
            plays = plays + excluded.plays,
            won = won + excluded.won,
            moves_over_par = moves_over_par + excluded.moves_over_par",
        shard,
        rows,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// `stats_metrics`: the games' key metrics.
async fn upsert_metrics(conn: &mut SqliteConnection, r: &Rollups) -> Result<(), StoreError> {
    let Some(rows) = rows(r.metrics.iter().map(|((g, name), x)| {
        json!([
            g.game,
            g.difficulty,
            g.version,
            name,
            x.levels,
            x.total,
            x.max
        ])
    })) else {
        return Ok(());
    };
    sqlx::query!(
        "INSERT INTO stats_metrics (game, difficulty, version, metric, levels, total, max)
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
            value ->> 5, value ->> 6
        FROM json_each(?1) WHERE true
        ON CONFLICT (game, difficulty, version, metric) DO UPDATE SET
            levels = levels + excluded.levels,
            total = total + excluded.total,
            max = MAX(max, excluded.max)",
        rows,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// `stats_days`: plays per UTC day.
async fn upsert_days(
    conn: &mut SqliteConnection,
    r: &Rollups,
    shard: i64,
) -> Result<(), StoreError> {
    let Some(rows) = rows(r.days.iter().map(|((day, g), x)| {
        json!([
            day,
            g.game,
            g.difficulty,
            g.version,
            x.plays,
            x.won,
            x.moves_over_par
        ])
    })) else {
        return Ok(());
    };
    sqlx::query!(
        "INSERT INTO stats_days (day, game, difficulty, version, shard, plays, won,
            moves_over_par)
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?1, value ->> 4,
            value ->> 5, value ->> 6
        FROM json_each(?2) WHERE true
        ON CONFLICT (day, game, difficulty, version, shard) DO UPDATE SET
            plays = plays + excluded.plays,
            won = won + excluded.won,
            moves_over_par = moves_over_par + excluded.moves_over_par",
        shard,
        rows,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// `stats_sketches`: histogram buckets (zero counts skipped).
async fn upsert_sketches(conn: &mut SqliteConnection, r: &Rollups) -> Result<(), StoreError> {
    let Some(rows) = rows(r.sketches.iter().filter(|(_, n)| **n != 0).map(
        |((measure, day, g, bucket), n)| {
            json!([measure, day, g.game, g.difficulty, g.version, bucket, n])
        },
    )) else {
        return Ok(());
    };
    sqlx::query!(
        "INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count)
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
            value ->> 5, value ->> 6
        FROM json_each(?1) WHERE true
        ON CONFLICT (measure, day, game, difficulty, version, bucket) DO UPDATE SET
            count = count + excluded.count",
        rows,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The rows as one JSON array, or None without rows.
fn rows(rows: impl Iterator<Item = Value>) -> Option<String> {
    let rows: Vec<Value> = rows.collect();
    (!rows.is_empty()).then(|| Value::Array(rows).to_string())
}

impl SqliteStore {
    /// The differences between the rollups and a recomputation from the raw rows, read
    /// in one snapshot (a read transaction in write-ahead-log mode is one).
    pub(crate) async fn compare_rollups(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let stored = load(&mut tx).await?;
        let expected = recompute(&mut tx).await?;
        tx.rollback().await?;
        Ok(stored.differences(&expected))
    }

    /// Rebuilds the rollups from the raw rows; the transaction holds the write lock from
    /// its start, so no level or play is written meanwhile.
    pub(crate) async fn rebuild(&self) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
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

/// What the tables hold, shards added up.
async fn load(conn: &mut SqliteConnection) -> Result<Rollups, StoreError> {
    let tables = Tables {
        groups: sqlx::query_as!(
            GroupTableRow,
            r#"SELECT game AS "game!", difficulty AS "difficulty!", version AS "version!",
                SUM(levels) AS "levels!: i64", SUM(candidates) AS "candidates!: i64", SUM(par_sum) AS "par_sum!: i64",
                SUM(states_sum) AS "states_sum!: i64", MAX(states_max) AS "states_max!: i64",
                SUM(solutions_unique) AS "solutions_unique!: i64",
                MAX(solutions_max) AS "solutions_max!: i64"
            FROM stats_groups GROUP BY game, difficulty, version"#
        )
        .fetch_all(&mut *conn)
        .await?,
        pars: sqlx::query_as!(
            ParTableRow,
            r#"SELECT game, difficulty, version, par, SUM(levels) AS "levels!: i64",
                SUM(rated_levels) AS "rated_levels!: i64",
                SUM(rating_micros) AS "rating_micros!: i64", SUM(plays) AS "plays!: i64",
                SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
            FROM stats_pars GROUP BY game, difficulty, version, par"#
        )
        .fetch_all(&mut *conn)
        .await?,
        metrics: sqlx::query_as!(
            MetricTableRow,
            "SELECT game, difficulty, version, metric, levels, total, max FROM stats_metrics"
        )
        .fetch_all(&mut *conn)
        .await?,
        days: sqlx::query_as!(
            DayTableRow,
            r#"SELECT day, game, difficulty, version, SUM(plays) AS "plays!: i64",
                SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
            FROM stats_days GROUP BY day, game, difficulty, version"#
        )
        .fetch_all(&mut *conn)
        .await?,
        sketches: sqlx::query_as!(
            SketchTableRow,
            "SELECT measure, day, game, difficulty, version, bucket, count FROM stats_sketches"
        )
        .fetch_all(&mut *conn)
        .await?,
    };
    Ok(Rollups::from_tables(tables))
}

/// The rollups recomputed from every stored level and play, streamed: memory stays
/// bounded whatever the tables' size.
async fn recompute(conn: &mut SqliteConnection) -> Result<Rollups, StoreError> {
    let mut rollups = Rollups::default();
    let mut levels = sqlx::query_as!(
        StoredLevel,
        "SELECT game, difficulty, version, par, attempts, generate_ms, solve_ms, states,
            solution_count, metrics, rating, rated_plays
        FROM levels"
    )
    .fetch(&mut *conn);
    while let Some(level) = levels.try_next().await? {
        rollups.add_stored_level(&level);
    }
    drop(levels);
    let mut plays = sqlx::query_as!(
        StoredPlayRow,
        r#"SELECT l.game, l.difficulty, l.version, l.par, p.status, p.moves_used, p.time_ms,
            substr(p.created_at, 1, 10) AS "day!: String"
        FROM plays p JOIN levels l
            ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed"#
    )
    .fetch(&mut *conn);
    while let Some(play) = plays.try_next().await? {
        rollups.add_stored_play(play);
    }
    Ok(rollups.without_empty_buckets())
}
