//! Statistics per (game, difficulty), read from the rollups alone (see `rollups.rs`): the
//! cost depends on the number of groups, pars, days and histogram buckets, not on the
//! number of levels or plays. No game's rules: a game's key metrics are names it gives.

use std::collections::BTreeMap;

use crate::rating::tenths;
use crate::sketch;
use levelforge_games::Difficulty;
use serde::Serialize;

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

/// A group's level figures, shards added up (`stats_groups`).
#[derive(Clone, Debug)]
pub struct GroupSums {
    pub game: String,
    pub difficulty: String,
    pub levels: i64,
    pub candidates: i64,
    pub par_sum: i64,
    pub states_sum: i64,
    pub states_max: i64,
    pub solutions_unique: i64,
    pub solutions_max: i64,
}

/// One par of a group, shards added up (`stats_pars`).
#[derive(Clone, Debug)]
pub struct ParSums {
    pub game: String,
    pub difficulty: String,
    pub par: i64,
    pub levels: i64,
    pub rated_levels: i64,
    pub rating_micros: i64,
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

/// One metric of a group (`stats_metrics`).
#[derive(Clone, Debug)]
pub struct MetricSums {
    pub game: String,
    pub difficulty: String,
    pub metric: String,
    pub levels: i64,
    pub total: f64,
    pub max: f64,
}

/// One histogram bucket of a group: of a measure over all time, or of won plays'
/// `time_ms` on one day (`stats_sketches`).
#[derive(Clone, Debug)]
pub struct BucketCount {
    pub game: String,
    pub difficulty: String,
    /// The measure (all time) or the day (`time_ms` by day).
    pub of: String,
    pub bucket: i64,
    pub count: i64,
}

/// One day of a group's plays (`stats_days`).
#[derive(Clone, Debug)]
pub struct DaySums {
    pub day: String,
    pub game: String,
    pub difficulty: String,
    pub plays: i64,
    pub won: i64,
    pub moves_over_par: i64,
}

/// The rollup rows of one `/stats` request, read by a backend within the filter's game,
/// tier and days. Pars and buckets come in ascending order; groups in (game, difficulty)
/// order, only those with levels. Without a day range, `days` and `day_times` are empty;
/// with one, `sketches` need not hold `time_ms`.
#[derive(Clone, Debug, Default)]
pub struct StatsRows {
    pub groups: Vec<GroupSums>,
    pub pars: Vec<ParSums>,
    pub metrics: Vec<MetricSums>,
    pub sketches: Vec<BucketCount>,
    pub days: Vec<DaySums>,
    pub day_times: Vec<BucketCount>,
}

impl StatsFilter {
    /// Whether a read needs the all-time `time_ms` buckets: only without a day range.
    pub fn needs_all_time_times(&self) -> bool {
        self.days.is_none()
    }
}

/// The statistics of each group from its rollup rows.
pub fn assemble(filter: &StatsFilter, rows: StatsRows) -> Vec<GroupStats> {
    let mut read = Read::default();
    for p in rows.pars {
        read.pars
            .entry((p.game, p.difficulty))
            .or_default()
            .push(ParBucket {
                par: p.par,
                levels: p.levels,
                rated_levels: p.rated_levels,
                rating_mean: rating_mean(p.rating_micros, p.rated_levels),
                plays: p.plays,
                won: p.won,
                solve_rate: ratio(p.won, p.plays),
                rating_micros: p.rating_micros,
                moves_over_par: p.moves_over_par,
            });
    }
    for m in rows.metrics {
        let metric = MetricStats {
            levels: m.levels,
            sum: Some(m.total),
            mean: mean_f(m.total, m.levels),
            max: Some(m.max),
        };
        read.metrics
            .insert(((m.game, m.difficulty), m.metric), metric);
    }
    for b in rows.sketches {
        read.sketches
            .entry(((b.game, b.difficulty), b.of))
            .or_default()
            .push((b.bucket, b.count));
    }
    for d in rows.days {
        read.days
            .entry((d.game, d.difficulty))
            .or_default()
            .insert(d.day, (d.plays, d.won, d.moves_over_par));
    }
    for b in rows.day_times {
        read.day_times
            .entry(((b.game, b.difficulty), b.of))
            .or_default()
            .push((b.bucket, b.count));
    }
    rows.groups
        .into_iter()
        .map(|group| group_stats(group, filter, &mut read))
        .collect()
}

fn mean_f(sum: f64, count: i64) -> Option<f64> {
    (count > 0).then(|| sum / count as f64)
}

fn group_stats(row: GroupSums, filter: &StatsFilter, read: &mut Read) -> GroupStats {
    let name = (row.game, row.difficulty);
    let (levels, candidates, unique) = (row.levels, row.candidates, row.solutions_unique);
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
    let metrics = key_metrics(&name, filter, read);
    let by_day = filter.days.is_some().then(|| plays_by_day(&name, read));
    let sketch = |measure: &str| read.sketches.get(&(name.clone(), measure.to_string()));
    let (plays, trend) = by_day.unwrap_or_else(|| {
        let (count, won, over_par) = all_plays;
        let times = sketch_percentiles(sketch("time_ms"));
        (play_stats(count, won, over_par, times), Vec::new())
    });
    let ratings = sketch("rating");
    let rating_at = |bucket: Option<&(i64, i64)>| bucket.map(|&(b, _)| tenths(b as f64 / 10.0));
    GroupStats {
        levels,
        candidates,
        acceptance_rate: ratio(levels, candidates),
        par: ParStats {
            mean: mean(row.par_sum, levels),
            percentiles: Percentiles::from_counts(histogram.iter().map(|b| (b.par, b.levels))),
            histogram,
        },
        generate_ms: sketch_percentiles(sketch("generate_ms")),
        solve_ms: sketch_percentiles(sketch("solve_ms")),
        states: StatesStats {
            mean: mean(row.states_sum, levels),
            max: Some(row.states_max),
        },
        solution_count: SolutionStats {
            unique,
            multiple: levels - unique,
            max: Some(row.solutions_max),
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
    }
}

/// The game's key metrics, by name; a metric no level has shows empty.
fn key_metrics(
    name: &GroupName,
    filter: &StatsFilter,
    read: &mut Read,
) -> BTreeMap<&'static str, MetricStats> {
    (filter.key_metrics)(&name.0)
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
        .collect()
}

/// The plays of the read's days, and the trend: one entry per day with plays.
fn plays_by_day(name: &GroupName, read: &mut Read) -> (PlayStats, Vec<DayStats>) {
    let days = read.days.remove(name).unwrap_or_default();
    let mut trend = Vec::with_capacity(days.len());
    let mut window_times: BTreeMap<i64, i64> = BTreeMap::new();
    let (mut count, mut won_all, mut over_par) = (0, 0, 0);
    for (day, &(plays, won, day_over_par)) in &days {
        (count, won_all, over_par) = (count + plays, won_all + won, over_par + day_over_par);
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
    let times: Buckets = window_times.into_iter().collect();
    let plays = play_stats(count, won_all, over_par, sketch_percentiles(Some(&times)));
    (plays, trend)
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
