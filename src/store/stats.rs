//! Statistics per (game, difficulty) over stored levels and player plays. Only stored
//! columns and the `metrics` JSON are read: no game's rules.

use std::collections::BTreeMap;

use levelforge_games::Difficulty;
use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::StoreError;
use super::browse::{Arg, Filter};
use super::sql::SqlStore;
use crate::rating::tenths;

/// Both optional: absent means every game / every tier, one group each.
#[derive(Clone, Copy, Debug)]
pub struct StatsFilter {
    pub game: Option<&'static str>,
    pub difficulty: Option<Difficulty>,
    /// A game's key metrics (`Game::key_metrics`), looked up by game name; the store
    /// summarises whatever it is given without knowing what the names mean.
    pub key_metrics: fn(&str) -> &'static [&'static str],
}

/// Nearest-rank percentiles (the smallest value with at least p of the values at or
/// below it): PostgreSQL's `percentile_disc`. None without values.
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
}

/// Player-calibrated difficulty over the group's rated levels.
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
    /// Median time_ms of won plays that reported a time.
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
}

fn ratio(part: i64, whole: i64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// A level's rating where players have rated it, else NULL (left out of aggregates).
const RATED_RATING: &str = "CASE WHEN rated_plays > 0 THEN rating END";

/// `WHERE game = $1 AND difficulty = $2` for one group.
fn group_filter(game: &str, difficulty: &str, column_prefix: &str) -> Filter {
    let mut filter = Filter::default();
    filter.and(
        &format!("{column_prefix}game = {{}}"),
        Arg::Text(game.into()),
    );
    filter.and(
        &format!("{column_prefix}difficulty = {{}}"),
        Arg::Text(difficulty.into()),
    );
    filter
}

impl SqlStore {
    pub(super) async fn all_stats(
        &self,
        filter: &StatsFilter,
    ) -> Result<Vec<GroupStats>, StoreError> {
        let rows = self.level_aggregates(filter).await?;
        let mut groups = Vec::with_capacity(rows.len());
        for row in &rows {
            groups.push(self.group(row, filter.key_metrics).await?);
        }
        Ok(groups)
    }

    /// One row per group: everything plain SQL aggregates give.
    async fn level_aggregates(&self, f: &StatsFilter) -> Result<Vec<AnyRow>, StoreError> {
        let mut filter = Filter::default();
        if let Some(game) = f.game {
            filter.and("game = {}", Arg::Text(game.into()));
        }
        if let Some(d) = f.difficulty {
            filter.and("difficulty = {}", Arg::Text(d.as_str().into()));
        }
        let rated = RATED_RATING;
        let sql = format!(
            "SELECT game, difficulty, COUNT(*), CAST(SUM(attempts) AS BIGINT), \
             CAST(AVG(par) AS DOUBLE PRECISION), CAST(AVG(states) AS DOUBLE PRECISION), \
             MAX(states), CAST(SUM(CASE WHEN solution_count = 1 THEN 1 ELSE 0 END) AS BIGINT), \
             MAX(solution_count), \
             CAST(SUM(CASE WHEN rated_plays > 0 THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(AVG({rated}) AS DOUBLE PRECISION), MIN({rated}), MAX({rated}) \
             FROM levels{} GROUP BY game, difficulty ORDER BY game, difficulty",
            filter.where_clause()
        );
        Ok(filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(self.pool())
            .await?)
    }

    async fn group(
        &self,
        row: &AnyRow,
        key_metrics: fn(&str) -> &'static [&'static str],
    ) -> Result<GroupStats, StoreError> {
        let game: String = row.try_get(0)?;
        let difficulty: String = row.try_get(1)?;
        let metrics = self
            .key_metric_stats(&game, &difficulty, key_metrics(&game))
            .await?;
        let levels: i64 = row.try_get(2)?;
        let candidates: i64 = row.try_get::<Option<i64>, _>(3)?.unwrap_or(0);
        let unique: i64 = row.try_get::<Option<i64>, _>(7)?.unwrap_or(0);
        let mut histogram = self.par_histogram(&game, &difficulty).await?;
        let plays = self.play_stats(&game, &difficulty, &mut histogram).await?;
        let level_rows = format!(
            " FROM levels{}",
            group_filter(&game, &difficulty, "").where_clause()
        );
        let level_args = group_filter(&game, &difficulty, "");
        Ok(GroupStats {
            levels,
            candidates,
            acceptance_rate: ratio(levels, candidates),
            par: ParStats {
                mean: row.try_get(4)?,
                percentiles: Percentiles::from_counts(histogram.iter().map(|b| (b.par, b.levels))),
                histogram,
            },
            generate_ms: self
                .percentiles("generate_ms", &level_rows, &level_args)
                .await?,
            solve_ms: self
                .percentiles("solve_ms", &level_rows, &level_args)
                .await?,
            states: StatesStats {
                mean: row.try_get(5)?,
                max: row.try_get(6)?,
            },
            solution_count: SolutionStats {
                unique,
                multiple: levels - unique,
                max: row.try_get(8)?,
            },
            metrics,
            ratings: RatingStats {
                rated_levels: row.try_get::<Option<i64>, _>(9)?.unwrap_or(0),
                mean: row.try_get::<Option<f64>, _>(10)?.map(tenths),
                min: row.try_get::<Option<f64>, _>(11)?.map(tenths),
                max: row.try_get::<Option<f64>, _>(12)?.map(tenths),
            },
            plays,
            game,
            difficulty,
        })
    }

    /// Count, sum, mean and max of each named `metrics` entry over one group, in one scan.
    async fn key_metric_stats(
        &self,
        game: &str,
        difficulty: &str,
        names: &'static [&'static str],
    ) -> Result<BTreeMap<&'static str, MetricStats>, StoreError> {
        if names.is_empty() {
            return Ok(BTreeMap::new());
        }
        // Each metric is picked out once per row, from metrics parsed once per row.
        let backend = self.backend();
        let picked: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{} AS m{i}", backend.metric_number("parsed", name)))
            .collect();
        let aggregates: Vec<String> = (0..names.len())
            .map(|i| format!("COUNT(m{i}), SUM(m{i}), MAX(m{i})"))
            .collect();
        let filter = group_filter(game, difficulty, "");
        let sql = format!(
            "SELECT {} FROM (SELECT {} FROM (SELECT {} AS parsed FROM levels{}) AS rows_parsed) \
             AS metric_values",
            aggregates.join(", "),
            picked.join(", "),
            backend.parsed_metrics(),
            filter.where_clause()
        );
        let row = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_one(self.pool())
            .await?;
        let mut stats = BTreeMap::new();
        for (i, name) in names.iter().enumerate() {
            let levels: i64 = row.try_get(3 * i)?;
            let sum: Option<f64> = row.try_get(3 * i + 1)?;
            let metric = MetricStats {
                levels,
                sum,
                mean: sum.filter(|_| levels > 0).map(|s| s / levels as f64),
                max: row.try_get(3 * i + 2)?,
            };
            stats.insert(*name, metric);
        }
        Ok(stats)
    }

    async fn par_histogram(
        &self,
        game: &str,
        difficulty: &str,
    ) -> Result<Vec<ParBucket>, StoreError> {
        let filter = group_filter(game, difficulty, "");
        let sql = format!(
            "SELECT par, COUNT(*), CAST(SUM(CASE WHEN rated_plays > 0 THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(AVG({RATED_RATING}) AS DOUBLE PRECISION) \
             FROM levels{} GROUP BY par ORDER BY par",
            filter.where_clause()
        );
        let rows = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| {
                Ok(ParBucket {
                    par: r.try_get(0)?,
                    levels: r.try_get(1)?,
                    rated_levels: r.try_get::<Option<i64>, _>(2)?.unwrap_or(0),
                    rating_mean: r.try_get::<Option<f64>, _>(3)?.map(tenths),
                    plays: 0,
                    won: 0,
                    solve_rate: None,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Nearest-rank percentiles of `column` over the rows of `from_where` (a constant of
    /// this module): `percentile_disc` where the backend has it, else rank by rank.
    async fn percentiles(
        &self,
        column: &str,
        from_where: &str,
        filter: &Filter,
    ) -> Result<Percentiles, StoreError> {
        if self.backend().has_percentiles() {
            let within = |p: &str| format!("percentile_disc({p}) WITHIN GROUP (ORDER BY {column})");
            let sql = format!(
                "SELECT {}, {}, {}{from_where}",
                within("0.5"),
                within("0.95"),
                within("0.99")
            );
            let row = filter
                .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
                .fetch_one(self.pool())
                .await?;
            return Ok(Percentiles {
                p50: row.try_get(0)?,
                p95: row.try_get(1)?,
                p99: row.try_get(2)?,
            });
        }
        // SQLite: count, then read each rank straight from the column's index
        // (`ORDER BY .. LIMIT 1 OFFSET rank - 1`) instead of fetching every value.
        let count_sql = format!("SELECT COUNT({column}){from_where}");
        let total: i64 = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(count_sql)))
            .fetch_one(self.pool())
            .await?
            .try_get(0)?;
        let at = |per_mille: i64| {
            let offset = (per_mille * total + 999) / 1000 - 1;
            let sql = format!(
                "SELECT {column}{from_where} AND {column} IS NOT NULL \
                 ORDER BY {column} LIMIT 1 OFFSET {offset}"
            );
            let query = filter.bind(sqlx::query(sqlx::AssertSqlSafe(sql)));
            async move {
                if total == 0 {
                    return Ok::<_, StoreError>(None);
                }
                Ok(query
                    .fetch_optional(self.pool())
                    .await?
                    .map(|r| r.try_get(0))
                    .transpose()?)
            }
        };
        Ok(Percentiles {
            p50: at(500).await?,
            p95: at(950).await?,
            p99: at(990).await?,
        })
    }

    /// Play totals for the group, filling in each par bucket's share on the way.
    async fn play_stats(
        &self,
        game: &str,
        difficulty: &str,
        histogram: &mut [ParBucket],
    ) -> Result<PlayStats, StoreError> {
        let filter = group_filter(game, difficulty, "p.");
        let sql = format!(
            "SELECT l.par, COUNT(*), CAST(SUM(CASE WHEN p.status = 'won' THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN p.status = 'won' THEN p.moves_used - l.par END) AS BIGINT) \
             FROM plays p JOIN levels l \
             ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed{} \
             GROUP BY l.par",
            filter.where_clause()
        );
        let rows = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(self.pool())
            .await?;
        let (mut count, mut won, mut moves_over_par) = (0, 0, 0);
        for row in &rows {
            let par: i64 = row.try_get(0)?;
            let plays: i64 = row.try_get(1)?;
            let wins = row.try_get::<Option<i64>, _>(2)?.unwrap_or(0);
            count += plays;
            won += wins;
            moves_over_par += row.try_get::<Option<i64>, _>(3)?.unwrap_or(0);
            if let Some(bucket) = histogram.iter_mut().find(|b| b.par == par) {
                bucket.plays = plays;
                bucket.won = wins;
                bucket.solve_rate = ratio(wins, plays);
            }
        }
        let mut timed = group_filter(game, difficulty, "");
        timed.and_sql("status = 'won' AND time_ms IS NOT NULL".into());
        let from_where = format!(" FROM plays{}", timed.where_clause());
        Ok(PlayStats {
            count,
            won,
            solve_rate: ratio(won, count),
            moves_over_par_mean: ratio(moves_over_par, won),
            time_to_solve_ms_p50: self.percentiles("time_ms", &from_where, &timed).await?.p50,
        })
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
