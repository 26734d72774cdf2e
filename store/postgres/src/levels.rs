//! Levels: stored once per key, read by key, browsed in keyset order.

use levelforge_store::browse::{BucketRating, SummaryRow, rated_buckets, set_par_ratings};
use levelforge_store::rollups::{Rollups, random_shard};
use levelforge_store::{Browse, LevelKey, LevelSummary, NewLevel, StoreError, seed_to_column};

use crate::PgStore;

impl PgStore {
    pub(crate) async fn stored_level(&self, key: &LevelKey) -> Result<Option<String>, StoreError> {
        let level = sqlx::query_scalar!(
            "SELECT level FROM levels WHERE game = $1 AND difficulty = $2 AND seed = $3",
            key.game,
            key.difficulty.as_str(),
            seed_to_column(key.seed),
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(level)
    }

    pub(crate) async fn store_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError> {
        let s = level.summary;
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query!(
            "INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms, \
             solve_ms, states, solution_count, metrics, level) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (game, difficulty, seed) DO NOTHING",
            key.game,
            key.difficulty.as_str(),
            seed_to_column(key.seed),
            level.version as i32,
            s.par as i32,
            s.attempts as i32,
            s.generate_ms as i64,
            s.solve_ms as i64,
            s.states as i64,
            s.solution_count as i64,
            s.metrics.get(),
            level.json,
        )
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if inserted && self.rollups {
            crate::rollups::upsert(&mut tx, &Rollups::of_new_level(key, level), random_shard())
                .await?;
        }
        tx.commit().await?;
        let stored = self.stored_level(key).await?;
        // Only a concurrent delete could get here, and nothing deletes levels.
        stored.ok_or(StoreError::Query(sqlx::Error::RowNotFound))
    }

    /// One page in (par, seed, difficulty) order. Each filter is a parameter that may be
    /// NULL; PostgreSQL plans each call with its values, so an absent filter costs nothing.
    pub(crate) async fn browse_page(&self, b: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        let after = b.after;
        let rows = sqlx::query_as!(
            SummaryRow,
            r#"SELECT game, difficulty, seed, version::int8 AS "version!", par::int8 AS "par!",
                attempts::int8 AS "attempts!", states, solution_count, generate_ms, solve_ms,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    AS "created_at!",
                rating, rating_deviation, rated_plays::int8 AS "rated_plays!"
            FROM levels
            LEFT JOIN (
                SELECT difficulty AS bucket_tier, par AS bucket_par, AVG(rating) AS par_rating
                FROM levels WHERE $9::float8 IS NOT NULL AND rated_plays > 0 AND game = $1
                GROUP BY difficulty, par
            ) buckets ON bucket_tier = difficulty AND bucket_par = par
            WHERE game = $1
                AND ($2::text IS NULL OR difficulty = $2)
                AND ($3::int4 IS NULL OR par >= $3)
                AND ($4::int4 IS NULL OR par <= $4)
                AND (NOT $5 OR rated_plays > 0)
                AND ($6::float8 IS NULL OR rating >= $6)
                AND ($7::float8 IS NULL OR rating <= $7)
                AND ($9::float8 IS NULL OR rating - par_rating >= $9)
                AND ($8::int4 IS NULL OR (par, seed, difficulty) > ($8, $10, $11))
            ORDER BY par, seed, difficulty
            LIMIT $12"#,
            b.game,
            b.difficulty.map(|d| d.as_str()),
            b.par_min.map(|p| p as i32),
            b.par_max.map(|p| p as i32),
            b.rated_only(),
            b.rating_min,
            b.rating_max,
            after.map(|a| a.par as i32),
            b.above_par_min,
            after.map(|a| seed_to_column(a.seed)),
            after.map(|a| a.difficulty.as_str()),
            i64::from(b.limit),
        )
        .fetch_all(&self.pool)
        .await?;
        let mut page: Vec<LevelSummary> = rows.into_iter().map(LevelSummary::from).collect();
        self.with_par_ratings(b.game, &mut page).await?;
        Ok(page)
    }

    /// Sets `rating_above_par` from the par rollups of just the buckets on the page.
    async fn with_par_ratings(
        &self,
        game: &str,
        page: &mut [LevelSummary],
    ) -> Result<(), StoreError> {
        let (tiers, pars): (Vec<String>, Vec<i32>) = rated_buckets(page)
            .into_iter()
            .map(|(tier, par)| (tier, par as i32))
            .unzip();
        if tiers.is_empty() {
            return Ok(());
        }
        let buckets = sqlx::query_as!(
            BucketRating,
            r#"SELECT difficulty, par::int8 AS "par!",
                SUM(rating_micros)::int8 AS "rating_micros!",
                SUM(rated_levels)::int8 AS "rated_levels!"
            FROM stats_pars
            WHERE game = $1
                AND (difficulty, par) IN (SELECT * FROM UNNEST($2::text[], $3::int4[]))
            GROUP BY difficulty, par"#,
            game,
            &tiers,
            &pars,
        )
        .fetch_all(&self.pool)
        .await?;
        set_par_ratings(page, &buckets);
        Ok(())
    }

    /// Synthetic levels and plays for `levelforge bench --stats`, seeds stored as the store
    /// encodes them (seed XOR 2^63), plays in batches of a million.
    pub(crate) async fn fill(&self, levels: u64, plays: u64) -> Result<(), StoreError> {
        sqlx::query!(
            r#"INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms,
                solve_ms, states, solution_count, metrics, level, rating, rated_plays)
            SELECT 'fruit', (ARRAY['easy', 'medium', 'hard', 'expert'])[i % 4 + 1],
                i - 9223372036854775807 - 1, 1, 2 + i % 15, 1 + i % 20, i % 300, i % 100,
                100 + i % 5000, 1 + i % 3,
                '{"dead_ends":' || (i % 50) || ',"stones":' || (i % 7) || '}', '{}',
                1000 + (i * 7919) % 1500, i % 5
            FROM generate_series(1, $1::int8) AS i"#,
            levels as i64,
        )
        .execute(&self.pool)
        .await?;
        const BATCH: u64 = 1_000_000;
        for from in (0..plays).step_by(BATCH as usize) {
            let to = (from + BATCH).min(plays);
            sqlx::query!(
                r#"INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves,
                    moves_used, time_ms, created_at)
                SELECT 'fruit', (ARRAY['easy', 'medium', 'hard', 'expert'])[(1 + j % $3) % 4 + 1],
                    1 + j % $3 - 9223372036854775807 - 1, true,
                    CASE WHEN j % 3 = 0 THEN 'lost' ELSE 'won' END, '',
                    2 + (1 + j % $3) % 15 + j % 4, j % 60000, now() - (j % 30) * interval '1 day'
                FROM generate_series($1::int8, $2::int8) AS j"#,
                from as i64 + 1,
                to as i64,
                levels as i64,
            )
            .execute(&self.pool)
            .await?;
        }
        sqlx::query!("ANALYZE").execute(&self.pool).await?;
        Ok(())
    }
}
