//! Synthetic levels and plays in bulk, for `levelforge bench --stats`.

use levelforge_store::StoreError;

use crate::PgStore;

impl PgStore {
    /// Synthetic levels and plays for `levelforge bench --stats`, seeds stored as the store
    /// encodes them (seed XOR 2^63), plays in batches of a million.
    pub(crate) async fn fill_synthetic(&self, levels: u64, plays: u64) -> Result<(), StoreError> {
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
