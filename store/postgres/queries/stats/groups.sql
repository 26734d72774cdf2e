SELECT game, difficulty, SUM(levels)::int8 AS "levels!",
    SUM(candidates)::int8 AS "candidates!", SUM(par_sum)::int8 AS "par_sum!",
    SUM(states_sum)::int8 AS "states_sum!", MAX(states_max) AS "states_max!",
    SUM(solutions_unique)::int8 AS "solutions_unique!",
    MAX(solutions_max) AS "solutions_max!"
FROM stats_groups
WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
GROUP BY game, difficulty HAVING SUM(levels) > 0
ORDER BY game, difficulty
