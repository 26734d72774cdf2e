//! `/stats` from the rollup tables alone: the reads cost what the number of groups, pars,
//! days and histogram buckets costs, not the number of levels or plays.

use levelforge_store::stats::{
    BucketCount, DaySums, GroupSums, MetricSums, ParSums, StatsRows, assemble,
};
use levelforge_store::{DayRange, GroupStats, StatsFilter, StoreError};

use crate::SqliteStore;

impl SqliteStore {
    pub(crate) async fn all_stats(
        &self,
        filter: &StatsFilter,
    ) -> Result<Vec<GroupStats>, StoreError> {
        let game = filter.game;
        let tier = filter.difficulty.map(|d| d.as_str());
        let all_time_times = filter.needs_all_time_times();
        let mut rows = StatsRows {
            groups: self.groups_rows(game, tier).await?,
            pars: self.pars_rows(game, tier).await?,
            metrics: self.metrics_rows(game, tier).await?,
            sketches: self.sketches_rows(game, tier, all_time_times).await?,
            ..StatsRows::default()
        };
        if let Some(days) = &filter.days {
            rows.days = self.days_rows(game, tier, days).await?;
            rows.day_times = self.day_times_rows(game, tier, days).await?;
        }
        Ok(assemble(filter, rows))
    }

    async fn groups_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
    ) -> Result<Vec<GroupSums>, StoreError> {
        let rows = sqlx::query_as!(
            GroupSums,
            r#"SELECT game AS "game!", difficulty AS "difficulty!", SUM(levels) AS "levels!: i64",
                SUM(candidates) AS "candidates!: i64", SUM(par_sum) AS "par_sum!: i64",
                SUM(states_sum) AS "states_sum!: i64", MAX(states_max) AS "states_max!: i64",
                SUM(solutions_unique) AS "solutions_unique!: i64",
                MAX(solutions_max) AS "solutions_max!: i64"
            FROM stats_groups
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
            GROUP BY game, difficulty HAVING SUM(levels) > 0
            ORDER BY game, difficulty"#,
            game,
            tier,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    async fn pars_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
    ) -> Result<Vec<ParSums>, StoreError> {
        let rows = sqlx::query_as!(
            ParSums,
            r#"SELECT game, difficulty, par, SUM(levels) AS "levels!: i64",
                SUM(rated_levels) AS "rated_levels!: i64",
                SUM(rating_micros) AS "rating_micros!: i64", SUM(plays) AS "plays!: i64",
                SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
            FROM stats_pars
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
            GROUP BY game, difficulty, par HAVING SUM(levels) > 0
            ORDER BY par"#,
            game,
            tier,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    async fn metrics_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
    ) -> Result<Vec<MetricSums>, StoreError> {
        let rows = sqlx::query_as!(
            MetricSums,
            r#"SELECT game AS "game!", difficulty AS "difficulty!", metric AS "metric!",
                SUM(levels) AS "levels!: i64",
                SUM(total) AS "total!: f64", MAX(max) AS "max!: f64"
            FROM stats_metrics
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
            GROUP BY game, difficulty, metric"#,
            game,
            tier,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    async fn sketches_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
        all_time_times: bool,
    ) -> Result<Vec<BucketCount>, StoreError> {
        let rows = sqlx::query_as!(
            BucketCount,
            r#"SELECT game, difficulty, measure AS "of", bucket,
                SUM(count) AS "count!: i64"
            FROM stats_sketches
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
                AND day = '' AND (?3 OR measure <> 'time_ms')
            GROUP BY measure, game, difficulty, bucket HAVING SUM(count) <> 0
            ORDER BY bucket"#,
            game,
            tier,
            all_time_times,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    async fn days_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
        days: &DayRange,
    ) -> Result<Vec<DaySums>, StoreError> {
        let rows = sqlx::query_as!(
            DaySums,
            r#"SELECT day, game, difficulty, SUM(plays) AS "plays!: i64",
                SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
            FROM stats_days
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
                AND day >= ?3 AND day <= ?4
            GROUP BY day, game, difficulty"#,
            game,
            tier,
            days.first,
            days.last,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    async fn day_times_rows(
        &self,
        game: Option<&str>,
        tier: Option<&str>,
        days: &DayRange,
    ) -> Result<Vec<BucketCount>, StoreError> {
        let rows = sqlx::query_as!(
            BucketCount,
            r#"SELECT game, difficulty, day AS "of", bucket, SUM(count) AS "count!: i64"
            FROM stats_sketches
            WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
                AND day >= ?3 AND day <= ?4 AND measure = 'time_ms'
            GROUP BY day, game, difficulty, bucket HAVING SUM(count) <> 0
            ORDER BY bucket"#,
            game,
            tier,
            days.first,
            days.last,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }
}
