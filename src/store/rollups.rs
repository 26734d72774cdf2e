//! Rollups: the running aggregates that `/stats` reads (the tables of migration 0005).
//!
//! One in-memory shape, [`Rollups`], serves three ways: the figures one stored level or
//! play adds, upserted as deltas in the transaction that stores it; a recomputation from
//! the raw rows (`levelforge stats`); and what the tables hold, read back to compare.
//! Every figure is a count, a sum or a max, so deltas commute: `x = x + excluded.x`
//! upserts from any number of replicas never lose one.

use std::collections::BTreeMap;

use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{Any, AnyConnection, QueryBuilder, Row};

use super::StoreError;
use super::sketch;
use super::sql::Backend;

/// Rows that plays update are spread over this many shards (see migration 0005).
pub(super) const SHARDS: i64 = 8;

/// A shard for one transaction's rows: any will do, as long as writers spread out.
pub(super) fn random_shard() -> i64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(std::process::id().into());
    (hasher.finish() % SHARDS as u64) as i64
}

/// Ratings are summed in millionths, truncated: integers, so sums move exactly.
pub(super) fn rating_micros(rating: f64) -> i64 {
    (rating * 1_000_000.0) as i64
}

/// A rating's bucket in the `rating` histogram: tenths, truncated.
pub(super) fn rating_tenths(rating: f64) -> i64 {
    (rating * 10.0) as i64
}

/// A (game, tier, generator version) group.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
}

/// A group's level figures; only storing a level changes them. Its play and rating
/// figures are the sums of its [`ParRow`]s, so a play does not touch this row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupRow {
    pub levels: i64,
    pub candidates: i64,
    pub par_sum: i64,
    pub states_sum: i64,
    pub states_max: i64,
    pub solutions_unique: i64,
    pub solutions_max: i64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParRow {
    pub levels: i64,
    pub rated_levels: i64,
    pub rating_micros: i64,
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

/// The columns of `stats_groups` and `stats_pars` that hold sums (the rest are keys and
/// maxima), as `Rollups::upsert` adds them and `Rollups::load` reads them.
const GROUP_SUMS: [&str; 5] = [
    "levels",
    "candidates",
    "par_sum",
    "states_sum",
    "solutions_unique",
];
const PAR_SUMS: [&str; 6] = [
    "levels",
    "rated_levels",
    "rating_micros",
    "plays",
    "won",
    "moves_over_par",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricRow {
    pub levels: i64,
    pub total: f64,
    pub max: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DayRow {
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

/// (measure, day or '' for all time, group, bucket).
pub type SketchKey = (String, String, Group, i64);

/// Rollup rows by key. `BTreeMap`s, so every writer upserts rows in one order and two
/// transactions never wait for each other's rows crosswise (no deadlock).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rollups {
    pub groups: BTreeMap<Group, GroupRow>,
    pub pars: BTreeMap<(Group, i64), ParRow>,
    pub metrics: BTreeMap<(Group, String), MetricRow>,
    pub days: BTreeMap<(String, Group), DayRow>,
    pub sketches: BTreeMap<SketchKey, i64>,
}

/// The figures of one stored level.
pub(super) struct LevelFacts<'a> {
    pub group: Group,
    pub par: i64,
    pub attempts: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    pub states: i64,
    pub solution_count: i64,
    /// The level's `metrics` object.
    pub metrics: &'a Value,
}

/// The figures of one stored play, with its level's group and par.
pub(super) struct PlayFacts {
    pub group: Group,
    pub par: i64,
    pub won: bool,
    pub moves_used: i64,
    pub time_ms: Option<i64>,
    /// The UTC day the database stamped on the play, `YYYY-MM-DD`.
    pub day: String,
}

/// A number or boolean (0/1) metrics entry as a float; other types are not summarised.
fn metric_value(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

impl Rollups {
    pub(super) fn add_level(&mut self, level: &LevelFacts<'_>) {
        let g = self.groups.entry(level.group.clone()).or_default();
        g.levels += 1;
        g.candidates += level.attempts;
        g.par_sum += level.par;
        g.states_sum += level.states;
        g.states_max = g.states_max.max(level.states);
        g.solutions_unique += i64::from(level.solution_count == 1);
        g.solutions_max = g.solutions_max.max(level.solution_count);
        self.par(&level.group, level.par).levels += 1;
        if let Some(entries) = level.metrics.as_object() {
            for (name, value) in entries {
                let Some(value) = metric_value(value) else {
                    continue;
                };
                let m = self
                    .metrics
                    .entry((level.group.clone(), name.clone()))
                    .or_insert(MetricRow {
                        levels: 0,
                        total: 0.0,
                        max: value,
                    });
                m.levels += 1;
                m.total += value;
                m.max = m.max.max(value);
            }
        }
        self.count(
            "generate_ms",
            "",
            &level.group,
            sketch::bucket(level.generate_ms),
            1,
        );
        self.count(
            "solve_ms",
            "",
            &level.group,
            sketch::bucket(level.solve_ms),
            1,
        );
    }

    pub(super) fn add_play(&mut self, play: &PlayFacts) {
        let won = i64::from(play.won);
        let over_par = if play.won {
            play.moves_used - play.par
        } else {
            0
        };
        let p = self.par(&play.group, play.par);
        p.plays += 1;
        p.won += won;
        p.moves_over_par += over_par;
        let d = self
            .days
            .entry((play.day.clone(), play.group.clone()))
            .or_default();
        d.plays += 1;
        d.won += won;
        d.moves_over_par += over_par;
        if let Some(time) = play.time_ms.filter(|_| play.won) {
            let bucket = sketch::bucket(time);
            self.count("time_ms", "", &play.group, bucket, 1);
            self.count("time_ms", &play.day, &play.group, bucket, 1);
        }
    }

    /// A level's rating moves from `before` (None: the level was unrated) to `after`.
    pub(super) fn move_rating(&mut self, group: &Group, par: i64, before: Option<f64>, after: f64) {
        let (levels, micros) = match before {
            None => (1, rating_micros(after)),
            Some(before) => (0, rating_micros(after) - rating_micros(before)),
        };
        let p = self.par(group, par);
        p.rated_levels += levels;
        p.rating_micros += micros;
        if let Some(before) = before {
            self.count("rating", "", group, rating_tenths(before), -1);
        }
        self.count("rating", "", group, rating_tenths(after), 1);
    }

    fn par(&mut self, group: &Group, par: i64) -> &mut ParRow {
        self.pars.entry((group.clone(), par)).or_default()
    }

    fn count(&mut self, measure: &str, day: &str, group: &Group, bucket: i64, n: i64) {
        let key = (measure.into(), day.into(), group.clone(), bucket);
        *self.sketches.entry(key).or_default() += n;
    }

    /// Drops histogram buckets that net to zero (a rating that moved on leaves one).
    fn without_empty_buckets(mut self) -> Rollups {
        self.sketches.retain(|_, n| *n != 0);
        self
    }

    /// Adds these figures to the tables, all in `shard`.
    pub(super) async fn upsert(
        &self,
        conn: &mut AnyConnection,
        backend: Backend,
        shard: i64,
    ) -> Result<(), StoreError> {
        let mut batch = Batch::new(backend, self.fits_one_query());
        self.upsert_in(&mut batch, conn, shard).await?;
        batch.finish(conn).await
    }

    /// Whether every table's rows fit one statement, so the upserts can go as one query.
    pub(super) fn fits_one_query(&self) -> bool {
        [
            self.groups.len(),
            self.pars.len(),
            self.metrics.len(),
            self.days.len(),
            self.sketches.len(),
        ]
        .iter()
        .all(|&rows| rows <= CHUNK)
    }

    /// Adds the upserts of these figures, all in `shard`, to `batch` (a batch that does
    /// not combine runs each on `conn` at once).
    pub(super) async fn upsert_in(
        &self,
        batch: &mut Batch,
        conn: &mut AnyConnection,
        shard: i64,
    ) -> Result<(), StoreError> {
        let backend = batch.backend;
        let max = |column: &str, table: &str| {
            backend.greatest(&format!("{table}.{column}"), &format!("excluded.{column}"))
        };
        let groups: Vec<_> = self.groups.iter().collect();
        for rows in groups.chunks(CHUNK) {
            let q = batch.start(
                "INSERT INTO stats_groups (game, difficulty, version, shard, levels, candidates, \
                 par_sum, states_sum, states_max, solutions_unique, solutions_max) ",
            );
            q.push_values(rows, |mut v, (group, r)| {
                push_group(&mut v, group);
                v.push_bind(shard)
                    .push_bind(r.levels)
                    .push_bind(r.candidates)
                    .push_bind(r.par_sum)
                    .push_bind(r.states_sum)
                    .push_bind(r.states_max)
                    .push_bind(r.solutions_unique)
                    .push_bind(r.solutions_max);
            });
            q.push(format!(
                " ON CONFLICT (game, difficulty, version, shard) DO UPDATE SET {}, \
                 states_max = {}, solutions_max = {}",
                added("stats_groups", &GROUP_SUMS),
                max("states_max", "stats_groups"),
                max("solutions_max", "stats_groups"),
            ));
            batch.end(&mut *conn).await?;
        }
        let pars: Vec<_> = self.pars.iter().collect();
        for rows in pars.chunks(CHUNK) {
            let q = batch.start(
                "INSERT INTO stats_pars (game, difficulty, version, par, shard, levels, \
                 rated_levels, rating_micros, plays, won, moves_over_par) ",
            );
            q.push_values(rows, |mut v, ((group, par), r)| {
                push_group(&mut v, group);
                v.push_bind(*par)
                    .push_bind(shard)
                    .push_bind(r.levels)
                    .push_bind(r.rated_levels)
                    .push_bind(r.rating_micros)
                    .push_bind(r.plays)
                    .push_bind(r.won)
                    .push_bind(r.moves_over_par);
            });
            q.push(format!(
                " ON CONFLICT (game, difficulty, version, par, shard) DO UPDATE SET {}",
                added("stats_pars", &PAR_SUMS)
            ));
            batch.end(&mut *conn).await?;
        }
        let metrics: Vec<_> = self.metrics.iter().collect();
        for rows in metrics.chunks(CHUNK) {
            let q = batch.start(
                "INSERT INTO stats_metrics (game, difficulty, version, metric, levels, total, max) ",
            );
            q.push_values(rows, |mut v, ((group, name), r)| {
                push_group(&mut v, group);
                v.push_bind(name.clone())
                    .push_bind(r.levels)
                    .push_bind(r.total)
                    .push_bind(r.max);
            });
            q.push(format!(
                " ON CONFLICT (game, difficulty, version, metric) DO UPDATE SET {}, max = {}",
                added("stats_metrics", &["levels", "total"]),
                max("max", "stats_metrics")
            ));
            batch.end(&mut *conn).await?;
        }
        let days: Vec<_> = self.days.iter().collect();
        for rows in days.chunks(CHUNK) {
            let q = batch.start(
                "INSERT INTO stats_days (day, game, difficulty, version, shard, plays, won, \
                 moves_over_par) ",
            );
            q.push_values(rows, |mut v, ((day, group), r)| {
                v.push_bind(day.clone());
                push_group(&mut v, group);
                v.push_bind(shard)
                    .push_bind(r.plays)
                    .push_bind(r.won)
                    .push_bind(r.moves_over_par);
            });
            q.push(format!(
                " ON CONFLICT (day, game, difficulty, version, shard) DO UPDATE SET {}",
                added("stats_days", &["plays", "won", "moves_over_par"])
            ));
            batch.end(&mut *conn).await?;
        }
        let sketches: Vec<_> = self.sketches.iter().filter(|(_, n)| **n != 0).collect();
        for rows in sketches.chunks(CHUNK) {
            let q = batch.start(
                "INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count) ",
            );
            q.push_values(rows, |mut v, ((measure, day, group, bucket), n)| {
                v.push_bind(measure.clone()).push_bind(day.clone());
                push_group(&mut v, group);
                v.push_bind(*bucket).push_bind(**n);
            });
            q.push(format!(
                " ON CONFLICT (measure, day, game, difficulty, version, bucket) DO UPDATE SET {}",
                added("stats_sketches", &["count"])
            ));
            batch.end(&mut *conn).await?;
        }
        Ok(())
    }

    /// What the tables hold, shards added up.
    pub(super) async fn load(conn: &mut AnyConnection) -> Result<Rollups, StoreError> {
        let mut rollups = Rollups::default();
        let sum = |c: &str| format!("CAST(SUM({c}) AS BIGINT) AS {c}");
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT game, difficulty, version, {}, MAX(states_max) AS states_max, \
             MAX(solutions_max) AS solutions_max FROM stats_groups \
             GROUP BY game, difficulty, version",
            GROUP_SUMS.map(sum).join(", ")
        )))
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            rollups.groups.insert(
                group_of(row)?,
                GroupRow {
                    levels: row.try_get("levels")?,
                    candidates: row.try_get("candidates")?,
                    par_sum: row.try_get("par_sum")?,
                    states_sum: row.try_get("states_sum")?,
                    states_max: row.try_get("states_max")?,
                    solutions_unique: row.try_get("solutions_unique")?,
                    solutions_max: row.try_get("solutions_max")?,
                },
            );
        }
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT game, difficulty, version, par, {} FROM stats_pars \
             GROUP BY game, difficulty, version, par",
            PAR_SUMS.map(sum).join(", ")
        )))
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            rollups.pars.insert(
                (group_of(row)?, row.try_get("par")?),
                ParRow {
                    levels: row.try_get("levels")?,
                    rated_levels: row.try_get("rated_levels")?,
                    rating_micros: row.try_get("rating_micros")?,
                    plays: row.try_get("plays")?,
                    won: row.try_get("won")?,
                    moves_over_par: row.try_get("moves_over_par")?,
                },
            );
        }
        let rows = sqlx::query(
            "SELECT game, difficulty, version, metric, levels, total, max FROM stats_metrics",
        )
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            rollups.metrics.insert(
                (group_of(row)?, row.try_get("metric")?),
                MetricRow {
                    levels: row.try_get("levels")?,
                    total: row.try_get("total")?,
                    max: row.try_get("max")?,
                },
            );
        }
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT day, game, difficulty, version, {} FROM stats_days \
             GROUP BY day, game, difficulty, version",
            ["plays", "won", "moves_over_par"].map(sum).join(", ")
        )))
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            rollups.days.insert(
                (row.try_get("day")?, group_of(row)?),
                DayRow {
                    plays: row.try_get("plays")?,
                    won: row.try_get("won")?,
                    moves_over_par: row.try_get("moves_over_par")?,
                },
            );
        }
        let rows = sqlx::query(
            "SELECT measure, day, game, difficulty, version, bucket, count FROM stats_sketches",
        )
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            let key = (
                row.try_get("measure")?,
                row.try_get("day")?,
                group_of(row)?,
                row.try_get("bucket")?,
            );
            rollups.sketches.insert(key, row.try_get("count")?);
        }
        Ok(rollups.without_empty_buckets())
    }

    /// The rollups recomputed from every stored level and play, read in keyset pages.
    pub(super) async fn recompute(
        conn: &mut AnyConnection,
        backend: Backend,
    ) -> Result<Rollups, StoreError> {
        const PAGE: i64 = 20_000;
        let mut rollups = Rollups::default();
        let mut after: Option<(String, String, i64)> = None;
        loop {
            let mut q = QueryBuilder::new(
                "SELECT game, difficulty, seed, version, par, attempts, generate_ms, solve_ms, \
                 states, solution_count, metrics, rating, rated_plays FROM levels",
            );
            if let Some((game, difficulty, seed)) = &after {
                q.push(" WHERE (game, difficulty, seed) > (")
                    .push_bind(game.clone())
                    .push(", ")
                    .push_bind(difficulty.clone())
                    .push(", ")
                    .push_bind(*seed)
                    .push(")");
            }
            q.push(" ORDER BY game, difficulty, seed LIMIT ").push(PAGE);
            let rows = backend.query(&mut q).fetch_all(&mut *conn).await?;
            for row in &rows {
                let metrics: String = row.try_get("metrics")?;
                let metrics: Value = serde_json::from_str(&metrics).unwrap_or(Value::Null);
                let level = LevelFacts {
                    group: group_of(row)?,
                    par: row.try_get("par")?,
                    attempts: row.try_get("attempts")?,
                    generate_ms: row.try_get("generate_ms")?,
                    solve_ms: row.try_get("solve_ms")?,
                    states: row.try_get("states")?,
                    solution_count: row.try_get("solution_count")?,
                    metrics: &metrics,
                };
                rollups.add_level(&level);
                let rated_plays: i64 = row.try_get("rated_plays")?;
                if rated_plays > 0 {
                    rollups.move_rating(&level.group, level.par, None, row.try_get("rating")?);
                }
            }
            match rows.last() {
                Some(last) if rows.len() as i64 == PAGE => {
                    after = Some((
                        last.try_get("game")?,
                        last.try_get("difficulty")?,
                        last.try_get("seed")?,
                    ))
                }
                _ => break,
            }
        }
        let mut after_id = i64::MIN;
        loop {
            let mut q = QueryBuilder::new(format!(
                "SELECT p.id, l.game, l.difficulty, l.version, l.par, p.status, p.moves_used, \
                 p.time_ms, {} AS day FROM plays p JOIN levels l \
                 ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed \
                 WHERE p.id > ",
                backend.day_of("p.created_at")
            ));
            q.push_bind(after_id)
                .push(" ORDER BY p.id LIMIT ")
                .push(PAGE);
            let rows = backend.query(&mut q).fetch_all(&mut *conn).await?;
            for row in &rows {
                let status: String = row.try_get("status")?;
                rollups.add_play(&PlayFacts {
                    group: group_of(row)?,
                    par: row.try_get("par")?,
                    won: status == "won",
                    moves_used: row.try_get("moves_used")?,
                    time_ms: row.try_get("time_ms")?,
                    day: row.try_get("day")?,
                });
            }
            match rows.last() {
                Some(last) if rows.len() as i64 == PAGE => after_id = last.try_get("id")?,
                _ => break,
            }
        }
        Ok(rollups.without_empty_buckets())
    }

    /// Each row that differs between `self` (stored) and `expected` (recomputed), in words.
    pub fn differences(&self, expected: &Rollups) -> Vec<String> {
        let mut out = Vec::new();
        diff("stats_groups", &self.groups, &expected.groups, &mut out);
        diff("stats_pars", &self.pars, &expected.pars, &mut out);
        diff("stats_days", &self.days, &expected.days, &mut out);
        diff(
            "stats_sketches",
            &self.sketches,
            &expected.sketches,
            &mut out,
        );
        // Float sums depend on the order of addition; integers (the usual metrics) are exact.
        let close = |a: &MetricRow, b: &MetricRow| {
            a.levels == b.levels
                && a.max == b.max
                && (a.total - b.total).abs() <= 1e-9 * a.total.abs().max(1.0)
        };
        for key in keys(&self.metrics, &expected.metrics) {
            match (self.metrics.get(key), expected.metrics.get(key)) {
                (Some(a), Some(b)) if close(a, b) => {}
                (a, b) => out.push(format!(
                    "stats_metrics {key:?}: stored {a:?}, recomputed {b:?}"
                )),
            }
        }
        out
    }
}

/// Rows per upsert statement, well below either backend's bound-parameter limit.
const CHUNK: usize = 500;

/// The statements of [`Rollups::upsert`]: a stored level's or play's few go as one query
/// (one round trip, see `Backend::batch_before`), a play's after the play's own insert;
/// a rebuild's many chunk by chunk.
pub(super) struct Batch {
    backend: Backend,
    combine: bool,
    query: QueryBuilder<Any>,
    parts: usize,
}

impl Batch {
    pub(super) fn new(backend: Backend, combine: bool) -> Batch {
        Batch {
            backend,
            combine,
            query: QueryBuilder::new(""),
            parts: 0,
        }
    }

    /// Begins the next statement with `insert`; the caller adds the rest, then [`Batch::end`].
    pub(super) fn start(&mut self, insert: &str) -> &mut QueryBuilder<Any> {
        if self.combine {
            self.query.push(self.backend.batch_before(self.parts));
        }
        self.query.push(insert);
        &mut self.query
    }

    pub(super) async fn end(&mut self, conn: &mut AnyConnection) -> Result<(), StoreError> {
        if self.combine {
            self.query.push(self.backend.batch_after());
            self.parts += 1;
            return Ok(());
        }
        self.backend.query(&mut self.query).execute(conn).await?;
        self.query.reset();
        Ok(())
    }

    async fn finish(mut self, conn: &mut AnyConnection) -> Result<(), StoreError> {
        if self.combine && self.parts > 0 {
            self.query.push(self.backend.batch_end());
            self.backend.query(&mut self.query).execute(conn).await?;
        }
        Ok(())
    }

    /// Runs a combined batch; the answer is the rows its first statement returns.
    pub(super) async fn fetch_first_rows(
        mut self,
        conn: &mut AnyConnection,
    ) -> Result<Vec<AnyRow>, StoreError> {
        self.query.push(self.backend.batch_end_returning_first());
        // All rows, not one: SQLite runs a batch's later statements only while it is read.
        Ok(self.backend.query(&mut self.query).fetch_all(conn).await?)
    }
}

fn keys<'a, K: Ord, V>(a: &'a BTreeMap<K, V>, b: &'a BTreeMap<K, V>) -> Vec<&'a K> {
    let mut keys: Vec<&K> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys
}

fn diff<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    table: &str,
    stored: &BTreeMap<K, V>,
    expected: &BTreeMap<K, V>,
    out: &mut Vec<String>,
) {
    for key in keys(stored, expected) {
        let (a, b) = (stored.get(key), expected.get(key));
        if a != b {
            out.push(format!("{table} {key:?}: stored {a:?}, recomputed {b:?}"));
        }
    }
}

fn group_of(row: &AnyRow) -> Result<Group, sqlx::Error> {
    Ok(Group {
        game: row.try_get("game")?,
        difficulty: row.try_get("difficulty")?,
        version: row.try_get("version")?,
    })
}

fn push_group(v: &mut sqlx::query_builder::Separated<'_, sqlx::Any, &'static str>, group: &Group) {
    v.push_bind(group.game.clone())
        .push_bind(group.difficulty.clone())
        .push_bind(group.version);
}

/// `c = table.c + excluded.c` for each column.
fn added(table: &str, columns: &[&str]) -> String {
    columns
        .iter()
        .map(|c| format!("{c} = {table}.{c} + excluded.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl super::SqlStore {
    /// The differences between the rollups and a recomputation from the raw rows, read
    /// in one snapshot (writers may keep writing).
    pub async fn check_rollups(&self) -> Result<Vec<String>, StoreError> {
        let backend = self.backend();
        let mut tx = self.pool().begin().await?;
        if let Some(sql) = backend.snapshot_sql() {
            sqlx::query(sql).execute(&mut *tx).await?;
        }
        let stored = Rollups::load(&mut tx).await?;
        let expected = Rollups::recompute(&mut tx, backend).await?;
        tx.rollback().await?;
        Ok(stored.differences(&expected))
    }

    /// Rebuilds the rollups from the raw rows, with writers held off meanwhile; returns
    /// how the old rollups differed from the rebuilt ones.
    pub async fn rebuild_rollups(&self) -> Result<Vec<String>, StoreError> {
        let backend = self.backend();
        let mut tx = self.pool().begin().await?;
        sqlx::query(backend.lock_raw_rows_sql())
            .execute(&mut *tx)
            .await?;
        let stored = Rollups::load(&mut tx).await?;
        let expected = Rollups::recompute(&mut tx, backend).await?;
        for table in [
            "stats_groups",
            "stats_pars",
            "stats_metrics",
            "stats_days",
            "stats_sketches",
        ] {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table}")))
                .execute(&mut *tx)
                .await?;
        }
        expected.upsert(&mut tx, backend, 0).await?;
        tx.commit().await?;
        Ok(stored.differences(&expected))
    }
}
