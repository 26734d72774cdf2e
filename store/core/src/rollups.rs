//! Rollups: the running aggregates that `/stats` reads (the tables of migration 0005).
//!
//! One in-memory shape, [`Rollups`], serves three ways: the figures one stored level or
//! play adds, upserted as deltas in the transaction that stores it; a recomputation from
//! the raw rows (`levelforge stats`); and what the tables hold, read back to compare.
//! This is the arithmetic; each backend reads and writes the tables in its own SQL.
//! Every figure is a count, a sum or a max, so deltas commute: `x = x + excluded.x`
//! upserts from any number of replicas never lose one.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::sketch;
use crate::{LevelKey, NewLevel};

/// Rows that plays update are spread over this many shards (see migration 0005).
pub const SHARDS: i64 = 8;

/// A shard for one transaction's rows: any will do, as long as writers spread out.
pub fn random_shard() -> i64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(std::process::id().into());
    (hasher.finish() % SHARDS as u64) as i64
}

/// Ratings are summed in millionths, truncated: integers, so sums move exactly.
pub fn rating_micros(rating: f64) -> i64 {
    (rating * 1_000_000.0) as i64
}

/// A rating's bucket in the `rating` histogram: tenths, truncated.
pub fn rating_tenths(rating: f64) -> i64 {
    (rating * 10.0) as i64
}

/// A (game, tier, generator version) group.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
}

impl Group {
    pub fn new(game: String, difficulty: String, version: i64) -> Group {
        Group {
            game,
            difficulty,
            version,
        }
    }
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
pub struct LevelFacts<'a> {
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
pub struct PlayFacts {
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
    pub fn add_level(&mut self, level: &LevelFacts<'_>) {
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

    pub fn add_play(&mut self, play: &PlayFacts) {
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
    pub fn move_rating(&mut self, group: &Group, par: i64, before: Option<f64>, after: f64) {
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

    /// What storing this new level adds.
    pub fn of_new_level(key: &LevelKey, level: &NewLevel<'_>) -> Rollups {
        let s = level.summary;
        // The rollups read the metrics' entries; a document that does not parse has none.
        let metrics: Value = serde_json::from_str(s.metrics.get()).unwrap_or(Value::Null);
        let mut rollups = Rollups::default();
        rollups.add_level(&LevelFacts {
            group: Group {
                game: key.game.into(),
                difficulty: key.difficulty.as_str().into(),
                version: level.version.into(),
            },
            par: s.par.into(),
            attempts: s.attempts.into(),
            generate_ms: s.generate_ms as i64,
            solve_ms: s.solve_ms as i64,
            states: s.states as i64,
            solution_count: s.solution_count as i64,
            metrics: &metrics,
        });
        rollups
    }

    /// Adds a level read back from the `levels` table (a recomputation).
    pub fn add_stored_level(&mut self, level: &StoredLevel) {
        let metrics: Value = serde_json::from_str(&level.metrics).unwrap_or(Value::Null);
        let facts = LevelFacts {
            group: Group {
                game: level.game.clone(),
                difficulty: level.difficulty.clone(),
                version: level.version,
            },
            par: level.par,
            attempts: level.attempts,
            generate_ms: level.generate_ms,
            solve_ms: level.solve_ms,
            states: level.states,
            solution_count: level.solution_count,
            metrics: &metrics,
        };
        self.add_level(&facts);
        if level.rated_plays > 0 {
            self.move_rating(&facts.group, level.par, None, level.rating);
        }
    }

    /// Adds a play read back from the `plays` table with its level (a recomputation).
    pub fn add_stored_play(&mut self, play: StoredPlayRow) {
        self.add_play(&PlayFacts {
            group: Group {
                game: play.game,
                difficulty: play.difficulty,
                version: play.version,
            },
            par: play.par,
            won: play.status == "won",
            moves_used: play.moves_used,
            time_ms: play.time_ms,
            day: play.day,
        });
    }

    /// What the tables hold, from their rows with shards added up.
    pub fn from_tables(tables: Tables) -> Rollups {
        let mut r = Rollups::default();
        let group = Group::new;
        for g in tables.groups {
            let row = GroupRow {
                levels: g.levels,
                candidates: g.candidates,
                par_sum: g.par_sum,
                states_sum: g.states_sum,
                states_max: g.states_max,
                solutions_unique: g.solutions_unique,
                solutions_max: g.solutions_max,
            };
            r.groups.insert(group(g.game, g.difficulty, g.version), row);
        }
        for p in tables.pars {
            let row = ParRow {
                levels: p.levels,
                rated_levels: p.rated_levels,
                rating_micros: p.rating_micros,
                plays: p.plays,
                won: p.won,
                moves_over_par: p.moves_over_par,
            };
            r.pars
                .insert((group(p.game, p.difficulty, p.version), p.par), row);
        }
        for m in tables.metrics {
            let row = MetricRow {
                levels: m.levels,
                total: m.total,
                max: m.max,
            };
            r.metrics
                .insert((group(m.game, m.difficulty, m.version), m.metric), row);
        }
        for d in tables.days {
            let row = DayRow {
                plays: d.plays,
                won: d.won,
                moves_over_par: d.moves_over_par,
            };
            r.days
                .insert((d.day, group(d.game, d.difficulty, d.version)), row);
        }
        for s in tables.sketches {
            let key = (
                s.measure,
                s.day,
                group(s.game, s.difficulty, s.version),
                s.bucket,
            );
            r.sketches.insert(key, s.count);
        }
        r.without_empty_buckets()
    }

    /// Drops histogram buckets that net to zero (a rating that moved on leaves one).
    pub fn without_empty_buckets(mut self) -> Rollups {
        self.sketches.retain(|_, n| *n != 0);
        self
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

/// A `levels` row as a recomputation reads it.
#[derive(Clone, Debug)]
pub struct StoredLevel {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub par: i64,
    pub attempts: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    pub states: i64,
    pub solution_count: i64,
    /// The level's `metrics` object as JSON text.
    pub metrics: String,
    pub rating: f64,
    pub rated_plays: i64,
}

/// A `plays` row joined to its level, as a recomputation reads it.
#[derive(Clone, Debug)]
pub struct StoredPlayRow {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub par: i64,
    pub status: String,
    pub moves_used: i64,
    pub time_ms: Option<i64>,
    /// The play's UTC day, `YYYY-MM-DD`.
    pub day: String,
}

/// The rollup tables' rows, shards added up, as a backend reads them back.
#[derive(Clone, Debug, Default)]
pub struct Tables {
    pub groups: Vec<GroupTableRow>,
    pub pars: Vec<ParTableRow>,
    pub metrics: Vec<MetricTableRow>,
    pub days: Vec<DayTableRow>,
    pub sketches: Vec<SketchTableRow>,
}

#[derive(Clone, Debug)]
pub struct GroupTableRow {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub levels: i64,
    pub candidates: i64,
    pub par_sum: i64,
    pub states_sum: i64,
    pub states_max: i64,
    pub solutions_unique: i64,
    pub solutions_max: i64,
}

#[derive(Clone, Debug)]
pub struct ParTableRow {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub par: i64,
    pub levels: i64,
    pub rated_levels: i64,
    pub rating_micros: i64,
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

#[derive(Clone, Debug)]
pub struct MetricTableRow {
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub metric: String,
    pub levels: i64,
    pub total: f64,
    pub max: f64,
}

#[derive(Clone, Debug)]
pub struct DayTableRow {
    pub day: String,
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

#[derive(Clone, Debug)]
pub struct SketchTableRow {
    pub measure: String,
    pub day: String,
    pub game: String,
    pub difficulty: String,
    pub version: i64,
    pub bucket: i64,
    pub count: i64,
}
