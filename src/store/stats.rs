//! Statistics per (game, difficulty), read from the rollups alone (see `rollups.rs`): the
//! cost depends on the number of groups, pars, days and histogram buckets, not on the
//! number of levels or plays. No game's rules: a game's key metrics are names it gives.

use std::collections::BTreeMap;

use levelforge_games::Difficulty;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{Any, QueryBuilder, Row};

use super::StoreError;
use super::sketch;
use super::sql::SqlStore;
use crate::rating::tenths;

/// Which groups, and which days.
#[derive(Clone, Debug)]
pub struct StatsFilter {
    /// Absent: every game / every tier, one group each.
    pub game: Option<&'static str>,
    pub difficulty: Option<Difficulty>,
    /// A game's key metrics (`Game::key_metrics`), looked up by game name; the store
    /// summarises whatever it is given without knowing what the names mean.
    pub key_metrics: fn(&str) -> &'static [&'static str],
    /// Given: the `plays` figures cover only these UTC days, and each group's `trend`
    /// lists them. Absent: every play, and no trend (the per-day medians are the
    /// costliest read: groups × days × buckets rows).
    pub days: Option<DayRange>,
}

/// Whole UTC days, `YYYY-MM-DD`, both ends included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DayRange {
    pub first: String,
    pub last: String,
}

/// Percentiles by nearest rank (the smallest value with at least p of the values at or
/// below it). Par's are exact; the millisecond ones come from log buckets and are within
/// 1 % of the exact value (see `sketch.rs`). None without values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: Option<i64>,
    pub p95: Option<i64>,
    pub p99: Option<i64>,
}

impl Percentiles {
    /// From values sorted ascending.
    #[cfg(test)]
    pub fn of_sorted(values: &[i64]) -> Percentiles {
        Percentiles::from_counts(values.iter().map(|&v| (v, 1)))
    }

    /// From (value, how many) pairs in ascending value order.
    pub fn from_counts(counts: impl Iterator<Item = (i64, i64)> + Clone) -> Percentiles {
        let total: i64 = counts.clone().map(|(_, n)| n).sum();
        let at = |per_mille: i64| {
            // 1-based rank ceil(p * n), in integers.
            let rank = (per_mille * total + 999) / 1000;
            let mut seen = 0;
            counts.clone().find_map(|(value, n)| {
                seen += n;
                (total > 0 && seen >= rank).then_some(value)
            })
        };
        Percentiles {
            p50: at(500),
            p95: at(950),
            p99: at(990),
        }
    }
}

/// The levels of one par, and how players fared on them.
#[derive(Clone, Debug, Serialize)]
pub struct ParBucket {
    pub par: i64,
    pub levels: i64,
    /// Levels with at least one rated play, and their mean rating.
    pub rated_levels: i64,
    pub rating_mean: Option<f64>,
    pub plays: i64,
    pub won: i64,
    pub solve_rate: Option<f64>,
    /// Summed over pars into the group's rating mean; not shown per par.
    #[serde(skip)]
    pub rating_micros: i64,
    /// Summed over pars into the group's `moves_over_par_mean`; not shown per par.
    #[serde(skip)]
    pub moves_over_par: i64,
}

/// Player-calibrated difficulty over the group's rated levels; `min` and `max` are
/// rounded down to the tenth (the rollup keeps a histogram of tenths).
#[derive(Clone, Debug, Serialize)]
pub struct RatingStats {
    pub rated_levels: i64,
    pub mean: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ParStats {
    pub mean: Option<f64>,
    #[serde(flatten)]
    pub percentiles: Percentiles,
    pub histogram: Vec<ParBucket>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StatesStats {
    pub mean: Option<f64>,
    pub max: Option<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SolutionStats {
    /// Levels with exactly one optimal solution.
    pub unique: i64,
    /// Levels with more than one.
    pub multiple: i64,
    pub max: Option<i64>,
}

/// One key metric of the game over a group's levels; a boolean counts as 0 or 1.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricStats {
    /// Levels whose metrics have the entry (not null).
    pub levels: i64,
    pub sum: Option<f64>,
    pub mean: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayStats {
    pub count: i64,
    /// Plays whose server replay won.
    pub won: i64,
    /// won / count.
    pub solve_rate: Option<f64>,
    /// Mean of moves_used - par over won plays.
    pub moves_over_par_mean: Option<f64>,
    /// Median time_ms of won plays that reported a time (within 1 %).
    pub time_to_solve_ms_p50: Option<i64>,
}

/// One UTC day of a group's plays.
#[derive(Clone, Debug, Serialize)]
pub struct DayStats {
    pub day: String,
    pub plays: i64,
    pub won: i64,
    pub solve_rate: Option<f64>,
    pub time_to_solve_ms_p50: Option<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GroupStats {
    pub game: String,
    pub difficulty: String,
    pub levels: i64,
    /// Candidates generated for these levels: the sum of `attempts`.
    pub candidates: i64,
    /// Levels per candidate: levels / candidates.
    pub acceptance_rate: Option<f64>,
    pub par: ParStats,
    pub generate_ms: Percentiles,
    pub solve_ms: Percentiles,
    pub states: StatesStats,
    pub solution_count: SolutionStats,
    /// The game's key metrics, by name.
    pub metrics: BTreeMap<&'static str, MetricStats>,
    pub ratings: RatingStats,
    pub plays: PlayStats,
    /// With `since`/`until`: those days that had plays, oldest first; else empty.
    pub trend: Vec<DayStats>,
}

fn ratio(part: i64, whole: i64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn mean(sum: i64, count: i64) -> Option<f64> {
    ratio(sum, count)
}

/// A rating sum in millionths over `count` levels, as a mean rating in tenths.
fn rating_mean(micros: i64, count: i64) -> Option<f64> {
    (count > 0).then(|| tenths(micros as f64 / 1e6 / count as f64))
}

/// `(game, difficulty)`: the key every rollup query returns its rows by.
type GroupName = (String, String);

fn group_name(row: &AnyRow) -> Result<GroupName, sqlx::Error> {
    Ok((row.try_get("game")?, row.try_get("difficulty")?))
}

/// Histogram buckets (ascending) of one measure of one group.
type Buckets = Vec<(i64, i64)>;

fn sketch_percentiles(buckets: Option<&Buckets>) -> Percentiles {
    let buckets = buckets.map_or(&[][..], Vec::as_slice);
    Percentiles::from_counts(
        buckets
            .iter()
            .map(|&(bucket, n)| (sketch::representative(bucket), n)),
    )
}

/// `CAST(SUM(c) AS BIGINT) AS c`, for each column (PostgreSQL sums BIGINTs as NUMERIC).
fn sums(columns: &[&str]) -> String {
    columns
        .iter()
        .map(|c| format!("CAST(SUM({c}) AS BIGINT) AS {c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Everything one `/stats` request reads, keyed by group.
#[derive(Default)]
struct Read {
    pars: BTreeMap<GroupName, Vec<ParBucket>>,
    metrics: BTreeMap<(GroupName, String), MetricStats>,
    /// (group, measure) → buckets, all time.
    sketches: BTreeMap<(GroupName, String), Buckets>,
    /// group → day → (plays, won, moves over par).
    days: BTreeMap<GroupName, BTreeMap<String, (i64, i64, i64)>>,
    /// (group, day) → buckets of won plays' time_ms.
    day_times: BTreeMap<(GroupName, String), Buckets>,
}

impl SqlStore {
    /// A query on a rollup table, limited to the filter's game and tier.
    fn scoped(
        &self,
        select: &str,
        filter: &StatsFilter,
        days: Option<&DayRange>,
    ) -> QueryBuilder<Any> {
        let mut q = QueryBuilder::new(select);
        q.push(" WHERE 1 = 1");
        if let Some(game) = filter.game {
            q.push(" AND game = ").push_bind(game);
        }
        if let Some(difficulty) = filter.difficulty {
            q.push(" AND difficulty = ").push_bind(difficulty.as_str());
        }
        if let Some(days) = days {
            q.push(" AND day >= ")
                .push_bind(days.first.clone())
                .push(" AND day <= ")
                .push_bind(days.last.clone());
        }
        q
    }

    async fn rows(&self, mut q: QueryBuilder<Any>) -> Result<Vec<AnyRow>, StoreError> {
        Ok(self.backend().query(&mut q).fetch_all(self.pool()).await?)
    }

    pub(super) async fn all_stats(
        &self,
        filter: &StatsFilter,
    ) -> Result<Vec<GroupStats>, StoreError> {
        let mut q = self.scoped(
            &format!(
                "SELECT game, difficulty, {}, MAX(states_max) AS states_max, \
                 MAX(solutions_max) AS solutions_max FROM stats_groups",
                sums(&[
                    "levels",
                    "candidates",
                    "par_sum",
                    "states_sum",
                    "solutions_unique",
                ])
            ),
            filter,
            None,
        );
        q.push(" GROUP BY game, difficulty HAVING SUM(levels) > 0 ORDER BY game, difficulty");
        let groups = self.rows(q).await?;
        let mut read = self.read_details(filter).await?;
        groups
            .iter()
            .map(|row| group_stats(row, filter, &mut read).map_err(StoreError::from))
            .collect()
    }

    async fn read_details(&self, filter: &StatsFilter) -> Result<Read, StoreError> {
        let mut read = Read::default();
        let mut q = self.scoped(
            &format!(
                "SELECT game, difficulty, par, {} FROM stats_pars",
                sums(&[
                    "levels",
                    "rated_levels",
                    "rating_micros",
                    "plays",
                    "won",
                    "moves_over_par"
                ])
            ),
            filter,
            None,
        );
        q.push(" GROUP BY game, difficulty, par HAVING SUM(levels) > 0 ORDER BY par");
        for row in self.rows(q).await? {
            let (levels, plays, won) = (
                row.try_get("levels")?,
                row.try_get("plays")?,
                row.try_get("won")?,
            );
            let rated: i64 = row.try_get("rated_levels")?;
            let rating_micros = row.try_get("rating_micros")?;
            read.pars
                .entry(group_name(&row)?)
                .or_default()
                .push(ParBucket {
                    par: row.try_get("par")?,
                    levels,
                    rated_levels: rated,
                    rating_mean: rating_mean(rating_micros, rated),
                    plays,
                    won,
                    solve_rate: ratio(won, plays),
                    rating_micros,
                    moves_over_par: row.try_get("moves_over_par")?,
                });
        }
        let mut q = self.scoped(
            "SELECT game, difficulty, metric, CAST(SUM(levels) AS BIGINT) AS levels, \
             SUM(total) AS total, MAX(max) AS max FROM stats_metrics",
            filter,
            None,
        );
        q.push(" GROUP BY game, difficulty, metric");
        for row in self.rows(q).await? {
            let levels: i64 = row.try_get("levels")?;
            let total: f64 = row.try_get("total")?;
            let metric = MetricStats {
                levels,
                sum: Some(total),
                mean: mean_f(total, levels),
                max: Some(row.try_get("max")?),
            };
            read.metrics
                .insert((group_name(&row)?, row.try_get("metric")?), metric);
        }
        let measures: &[&str] = if filter.days.is_some() {
            &["generate_ms", "solve_ms", "rating"]
        } else {
            &["generate_ms", "solve_ms", "rating", "time_ms"]
        };
        let mut q = self.scoped(
            "SELECT measure, game, difficulty, bucket, CAST(SUM(count) AS BIGINT) AS count \
             FROM stats_sketches",
            filter,
            None,
        );
        q.push(" AND day = '' AND measure IN (");
        let mut list = q.separated(", ");
        for measure in measures {
            list.push_bind(*measure);
        }
        q.push(
            ") GROUP BY measure, game, difficulty, bucket HAVING SUM(count) <> 0 ORDER BY bucket",
        );
        for row in self.rows(q).await? {
            read.sketches
                .entry((group_name(&row)?, row.try_get("measure")?))
                .or_default()
                .push((row.try_get("bucket")?, row.try_get("count")?));
        }
        let Some(days) = &filter.days else {
            return Ok(read);
        };
        let mut q = self.scoped(
            &format!(
                "SELECT day, game, difficulty, {} FROM stats_days",
                sums(&["plays", "won", "moves_over_par"])
            ),
            filter,
            Some(days),
        );
        q.push(" GROUP BY day, game, difficulty");
        for row in self.rows(q).await? {
            read.days.entry(group_name(&row)?).or_default().insert(
                row.try_get("day")?,
                (
                    row.try_get("plays")?,
                    row.try_get("won")?,
                    row.try_get("moves_over_par")?,
                ),
            );
        }
        let mut q = self.scoped(
            "SELECT day, game, difficulty, bucket, CAST(SUM(count) AS BIGINT) AS count \
             FROM stats_sketches",
            filter,
            Some(days),
        );
        q.push(
            " AND measure = 'time_ms' GROUP BY day, game, difficulty, bucket \
             HAVING SUM(count) <> 0 ORDER BY bucket",
        );
        for row in self.rows(q).await? {
            read.day_times
                .entry((group_name(&row)?, row.try_get("day")?))
                .or_default()
                .push((row.try_get("bucket")?, row.try_get("count")?));
        }
        Ok(read)
    }
}

fn mean_f(sum: f64, count: i64) -> Option<f64> {
    (count > 0).then(|| sum / count as f64)
}

fn group_stats(
    row: &AnyRow,
    filter: &StatsFilter,
    read: &mut Read,
) -> Result<GroupStats, sqlx::Error> {
    let name = group_name(row)?;
    let levels: i64 = row.try_get("levels")?;
    let candidates: i64 = row.try_get("candidates")?;
    let unique: i64 = row.try_get("solutions_unique")?;
    let histogram = read.pars.remove(&name).unwrap_or_default();
    // Play and rating figures are kept per par only (a play touches no group row).
    let total = |figure: fn(&ParBucket) -> i64| histogram.iter().map(figure).sum::<i64>();
    let rated = total(|b| b.rated_levels);
    let rating_micros = total(|b| b.rating_micros);
    let all_plays = (
        total(|b| b.plays),
        total(|b| b.won),
        total(|b| b.moves_over_par),
    );
    let sketch = |measure: &str| read.sketches.get(&(name.clone(), measure.to_string()));
    let ratings = sketch("rating");
    let rating_at = |bucket: Option<&(i64, i64)>| bucket.map(|&(b, _)| tenths(b as f64 / 10.0));
    let metrics = (filter.key_metrics)(&name.0)
        .iter()
        .map(|&metric| {
            let stats = read
                .metrics
                .remove(&(name.clone(), metric.to_string()))
                .unwrap_or(MetricStats {
                    levels: 0,
                    sum: None,
                    mean: None,
                    max: None,
                });
            (metric, stats)
        })
        .collect();
    let days = read.days.remove(&name).unwrap_or_default();
    let mut trend = Vec::with_capacity(days.len());
    let mut window_times: BTreeMap<i64, i64> = BTreeMap::new();
    for (day, &(plays, won, _)) in &days {
        let times = read.day_times.remove(&(name.clone(), day.clone()));
        for &(bucket, n) in times.iter().flatten() {
            *window_times.entry(bucket).or_default() += n;
        }
        trend.push(DayStats {
            day: day.clone(),
            plays,
            won,
            solve_rate: ratio(won, plays),
            time_to_solve_ms_p50: sketch_percentiles(times.as_ref()).p50,
        });
    }
    let plays = if filter.days.is_some() {
        let (count, won, over_par) = days.values().fold((0, 0, 0), |(c, w, o), &(dc, dw, dop)| {
            (c + dc, w + dw, o + dop)
        });
        let times: Buckets = window_times.into_iter().collect();
        play_stats(count, won, over_par, sketch_percentiles(Some(&times)))
    } else {
        let (count, won, over_par) = all_plays;
        play_stats(count, won, over_par, sketch_percentiles(sketch("time_ms")))
    };
    Ok(GroupStats {
        levels,
        candidates,
        acceptance_rate: ratio(levels, candidates),
        par: ParStats {
            mean: mean(row.try_get("par_sum")?, levels),
            percentiles: Percentiles::from_counts(histogram.iter().map(|b| (b.par, b.levels))),
            histogram,
        },
        generate_ms: sketch_percentiles(sketch("generate_ms")),
        solve_ms: sketch_percentiles(sketch("solve_ms")),
        states: StatesStats {
            mean: mean(row.try_get("states_sum")?, levels),
            max: Some(row.try_get("states_max")?),
        },
        solution_count: SolutionStats {
            unique,
            multiple: levels - unique,
            max: Some(row.try_get("solutions_max")?),
        },
        metrics,
        ratings: RatingStats {
            rated_levels: rated,
            mean: rating_mean(rating_micros, rated),
            min: rating_at(ratings.and_then(|b| b.first())),
            max: rating_at(ratings.and_then(|b| b.last())),
        },
        plays,
        trend,
        game: name.0,
        difficulty: name.1,
    })
}

fn play_stats(count: i64, won: i64, over_par: i64, times: Percentiles) -> PlayStats {
    PlayStats {
        count,
        won,
        solve_rate: ratio(won, count),
        moves_over_par_mean: ratio(over_par, won),
        time_to_solve_ms_p50: times.p50,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(Percentiles::of_sorted(&[]), Percentiles::default());
        let one_to_hundred: Vec<i64> = (1..=100).collect();
        let p = Percentiles::of_sorted(&one_to_hundred);
        assert_eq!((p.p50, p.p95, p.p99), (Some(50), Some(95), Some(99)));
        let p = Percentiles::of_sorted(&[7]);
        assert_eq!((p.p50, p.p95, p.p99), (Some(7), Some(7), Some(7)));
        let p = Percentiles::from_counts([(2, 3), (5, 1)].into_iter());
        assert_eq!((p.p50, p.p95, p.p99), (Some(2), Some(5), Some(5)));
    }
}
