SELECT game AS "game!", difficulty AS "difficulty!", SUM(levels) AS "levels!: i64",
    SUM(candidates) AS "candidates!: i64", SUM(par_sum) AS "par_sum!: i64",
    SUM(states_sum) AS "states_sum!: i64", MAX(states_max) AS "states_max!: i64",
    SUM(solutions_unique) AS "solutions_unique!: i64",
    MAX(solutions_max) AS "solutions_max!: i64"
FROM stats_groups
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
GROUP BY game, difficulty HAVING SUM(levels) > 0
ORDER BY game, difficulty
