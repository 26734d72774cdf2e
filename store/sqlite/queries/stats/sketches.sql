SELECT game, difficulty, measure AS "of", bucket,
    SUM(count) AS "count!: i64"
FROM stats_sketches
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
    AND day = '' AND (?3 OR measure <> 'time_ms')
GROUP BY measure, game, difficulty, bucket HAVING SUM(count) <> 0
ORDER BY bucket
