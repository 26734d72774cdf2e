SELECT game, difficulty, measure AS "of", bucket::int8 AS "bucket!",
    SUM(count)::int8 AS "count!"
FROM stats_sketches
WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
    AND day = '' AND ($3 OR measure <> 'time_ms')
GROUP BY measure, game, difficulty, bucket HAVING SUM(count) <> 0
ORDER BY bucket
