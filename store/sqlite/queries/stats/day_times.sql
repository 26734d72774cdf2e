SELECT game, difficulty, day AS "of", bucket, SUM(count) AS "count!: i64"
FROM stats_sketches
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
    AND day >= ?3 AND day <= ?4 AND measure = 'time_ms'
GROUP BY day, game, difficulty, bucket HAVING SUM(count) <> 0
ORDER BY bucket
