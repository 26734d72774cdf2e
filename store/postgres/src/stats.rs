//! `/stats` from the rollup tables alone: the reads cost what the number of groups, pars,
//! days and histogram buckets costs, not the number of levels or plays.

use levelforge_store::stats::{
    BucketCount, DaySums, GroupSums, MetricSums, ParSums, StatsRows, assemble,
};
use levelforge_store::{DayRange, GroupStats, StatsFilter, StoreError};

use crate::PgStore;

impl PgStore {
    pub(crate) async fn all_stats(
        &self,
        filter: &StatsFilter,
    ) -> Result<Vec<GroupStats>, StoreError> {
        let game = filter.game;
        let tier = filter.difficulty.map(|d| d.as_str());
        let mut rows = StatsRows {
            groups: self.groups_rows(game, tier).await?,
            pars: self.pars_rows(game, tier).await?,
            metrics: self.metrics_rows(game, tier).await?,
            sketches: self
                .sketches_rows(game, tier, filter.needs_all_time_times())
                .await?,
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
            r#"SELECT game, difficulty, SUM(levels)::int8 AS "levels!",
                SUM(candidates)::int8 AS "candidates!", SUM(par_sum)::int8 AS "par_sum!",
                SUM(states_sum)::int8 AS "states_sum!", MAX(states_max) AS "states_max!",
                SUM(solutions_unique)::int8 AS "solutions_unique!",
                MAX(solutions_max) AS "solutions_max!"
            FROM stats_groups
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
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
            r#"SELECT game, difficulty, par::int8 AS "par!", SUM(levels)::int8 AS "levels!",
                SUM(rated_levels)::int8 AS "rated_levels!",
                SUM(rating_micros)::int8 AS "rating_micros!", SUM(plays)::int8 AS "plays!",
                SUM(won)::int8 AS "won!", SUM(moves_over_par)::int8 AS "moves_over_par!"
            FROM stats_pars
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
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
            r#"SELECT game, difficulty, metric, SUM(levels)::int8 AS "levels!",
                SUM(total) AS "total!", MAX(max) AS "max!"
            FROM stats_metrics
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
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
            r#"SELECT game, difficulty, measure AS "of", bucket::int8 AS "bucket!",
                SUM(count)::int8 AS "count!"
            FROM stats_sketches
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
                AND day = '' AND ($3 OR measure <> 'time_ms')
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
            r#"SELECT day, game, difficulty, SUM(plays)::int8 AS "plays!",
                SUM(won)::int8 AS "won!", SUM(moves_over_par)::int8 AS "moves_over_par!"
            FROM stats_days
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
                AND day >= $3 AND day <= $4
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
            r#"SELECT game, difficulty, day AS "of", bucket::int8 AS "bucket!",
                SUM(count)::int8 AS "count!"
            FROM stats_sketches
            WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
                AND day >= $3 AND day <= $4 AND measure = 'time_ms'
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
