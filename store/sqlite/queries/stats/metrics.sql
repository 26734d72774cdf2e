SELECT game AS "game!", difficulty AS "difficulty!", metric AS "metric!",
    SUM(levels) AS "levels!: i64",
    SUM(total) AS "total!: f64", MAX(max) AS "max!: f64"
FROM stats_metrics
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
GROUP BY game, difficulty, metric
