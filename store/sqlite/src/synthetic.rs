//! Synthetic levels and plays in bulk, for `levelforge bench --stats`.

use levelforge_store::StoreError;

use crate::SqliteStore;

impl SqliteStore {
    /// Synthetic levels and plays for `levelforge bench --stats`, seeds stored as the store
    /// encodes them (seed XOR 2^63), plays in batches of a million.
    pub(crate) async fn fill_synthetic(&self, levels: u64, plays: u64) -> Result<(), StoreError> {
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
