-- The four measures the rollups keep, as a list rather than `measure <> ...`: SQLite seeks
-- the primary key (measure, day, ...) for each instead of scanning every day's rows.
SELECT game, difficulty, measure AS "of", bucket,
    SUM(count) AS "count!: i64"
FROM stats_sketches
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
    AND day = ''
    AND measure IN ('generate_ms', 'solve_ms', 'rating', CASE WHEN ?3 THEN 'time_ms' END)
GROUP BY measure, game, difficulty, bucket HAVING SUM(count) <> 0
ORDER BY bucket
