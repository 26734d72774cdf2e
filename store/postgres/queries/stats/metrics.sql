SELECT game, difficulty, metric, SUM(levels)::int8 AS "levels!",
    SUM(total) AS "total!", MAX(max) AS "max!"
FROM stats_metrics
WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
GROUP BY game, difficulty, metric
