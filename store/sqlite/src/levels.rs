//! Levels: stored once per key, read by key, browsed in keyset order.

use levelforge_store::browse::{BucketRating, SummaryRow, rated_buckets, set_par_ratings};
use levelforge_store::rollups::{Rollups, random_shard};
use levelforge_store::{Browse, LevelKey, LevelSummary, NewLevel, StoreError, seed_to_column};

use crate::SqliteStore;

impl SqliteStore {
    pub(crate) async fn stored_level(&self, key: &LevelKey) -> Result<Option<String>, StoreError> {
        let (game, tier, seed) = (key.game, key.difficulty.as_str(), seed_to_column(key.seed));
        let level = sqlx::query_scalar!(
            "SELECT level FROM levels WHERE game = ?1 AND difficulty = ?2 AND seed = ?3",
            game,
            tier,
            seed,
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
        let (game, tier, seed) = (key.game, key.difficulty.as_str(), seed_to_column(key.seed));
        let figures = [
            i64::from(level.version),
            i64::from(s.par),
            i64::from(s.attempts),
            s.generate_ms as i64,
            s.solve_ms as i64,
            s.states as i64,
            s.solution_count as i64,
        ];
        let [
            version,
            par,
            attempts,
            generate_ms,
            solve_ms,
            states,
            solution_count,
        ] = figures;
        let metrics = s.metrics.get();
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let inserted = sqlx::query!(
            "INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms,
                solve_ms, states, solution_count, metrics, level)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT (game, difficulty, seed) DO NOTHING",
            game,
            tier,
            seed,
            version,
            par,
            attempts,
            generate_ms,
            solve_ms,
            states,
            solution_count,
            metrics,
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

    /// One page in (par, seed, difficulty) order; each filter is a parameter that may be
    /// NULL.
    pub(crate) async fn browse_page(&self, b: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        let tier = b.difficulty.map(|d| d.as_str());
        let (par_min, par_max) = (b.par_min.map(i64::from), b.par_max.map(i64::from));
        let rated_only = b.rated_only();
        let after_par = b.after.map(|a| i64::from(a.par));
        let after_seed = b.after.map(|a| seed_to_column(a.seed));
        let after_tier = b.after.map(|a| a.difficulty.as_str());
        let limit = i64::from(b.limit);
        let rows = sqlx::query_as!(
            SummaryRow,
            r#"SELECT game AS "game!", difficulty AS "difficulty!", seed AS "seed!",
                version AS "version!", par AS "par!", attempts AS "attempts!",
                states AS "states!", solution_count AS "solution_count!",
                generate_ms AS "generate_ms!", solve_ms AS "solve_ms!",
                strftime('%Y-%m-%dT%H:%M:%SZ', created_at) AS "created_at!: String",
                rating AS "rating!", rating_deviation AS "rating_deviation!",
                rated_plays AS "rated_plays!"
            FROM levels
            LEFT JOIN (
                SELECT difficulty AS bucket_tier, par AS bucket_par, AVG(rating) AS par_rating
                FROM levels WHERE ?9 IS NOT NULL AND rated_plays > 0 AND game = ?1
                GROUP BY difficulty, par
            ) buckets ON bucket_tier = difficulty AND bucket_par = par
            WHERE game = ?1
                AND (?2 IS NULL OR difficulty = ?2)
                AND (?3 IS NULL OR par >= ?3)
                AND (?4 IS NULL OR par <= ?4)
                AND (NOT ?5 OR rated_plays > 0)
                AND (?6 IS NULL OR rating >= ?6)
                AND (?7 IS NULL OR rating <= ?7)
                AND (?9 IS NULL OR rating - par_rating >= ?9)
                AND (?8 IS NULL OR (par, seed, difficulty) > (?8, ?10, ?11))
            ORDER BY par, seed, difficulty
            LIMIT ?12"#,
            b.game,
            tier,
            par_min,
            par_max,
            rated_only,
            b.rating_min,
            b.rating_max,
            after_par,
            b.above_par_min,
            after_seed,
            after_tier,
            limit,
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
        let wanted = rated_buckets(page);
        if wanted.is_empty() {
            return Ok(());
        }
        let wanted = serde_json::to_string(&wanted).expect("strings and integers serialize");
        let buckets = sqlx::query_as!(
            BucketRating,
            r#"SELECT difficulty AS "difficulty!", par AS "par!",
                SUM(rating_micros) AS "rating_micros!: i64",
                SUM(rated_levels) AS "rated_levels!: i64"
            FROM stats_pars
            WHERE game = ?1
                AND (difficulty, par) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?2))
            GROUP BY difficulty, par"#,
            game,
            wanted,
        )
        .fetch_all(&self.pool)
        .await?;
        set_par_ratings(page, &buckets);
        Ok(())
    }

    /// Synthetic levels and plays for `levelforge bench --stats`, seeds stored as the store
    /// encodes them (seed XOR 2^63), plays in batches of a million.
    pub(crate) async fn fill(&self, levels: u64, plays: u64) -> Result<(), StoreError> {
        let levels = levels as i64;
        sqlx::query!(
            r#"WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?1)
            INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms,
                solve_ms, states, solution_count, metrics, level, rating, rated_plays)
            SELECT 'fruit',
                CASE i % 4 WHEN 0 THEN 'easy' WHEN 1 THEN 'medium' WHEN 2 THEN 'hard'
                    ELSE 'expert' END,
                i - 9223372036854775807 - 1, 1, 2 + i % 15, 1 + i % 20, i % 300, i % 100,
                100 + i % 5000, 1 + i % 3,
                '{"dead_ends":' || (i % 50) || ',"stones":' || (i % 7) || '}', '{}',
                1000 + (i * 7919) % 1500, i % 5
            FROM s"#,
            levels,
        )
        .execute(&self.pool)
        .await?;
        const BATCH: u64 = 1_000_000;
        for from in (0..plays).step_by(BATCH as usize) {
            let (first, last) = (from as i64 + 1, (from + BATCH).min(plays) as i64);
            sqlx::query!(
                r#"WITH RECURSIVE s(j) AS (SELECT ?1 UNION ALL SELECT j + 1 FROM s WHERE j < ?2)
                INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves,
                    moves_used, time_ms, created_at)
                SELECT 'fruit',
                    CASE (1 + j % ?3) % 4 WHEN 0 THEN 'easy' WHEN 1 THEN 'medium'
                        WHEN 2 THEN 'hard' ELSE 'expert' END,
                    1 + j % ?3 - 9223372036854775807 - 1, 1,
                    CASE WHEN j % 3 = 0 THEN 'lost' ELSE 'won' END, '',
                    2 + (1 + j % ?3) % 15 + j % 4, j % 60000,
                    datetime('now', '-' || (j % 30) || ' days')
                FROM s"#,
                first,
                last,
                levels,
            )
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }
}
