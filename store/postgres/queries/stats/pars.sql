SELECT game, difficulty, par::int8 AS "par!", SUM(levels)::int8 AS "levels!",
    SUM(rated_levels)::int8 AS "rated_levels!",
    SUM(rating_micros)::int8 AS "rating_micros!", SUM(plays)::int8 AS "plays!",
    SUM(won)::int8 AS "won!", SUM(moves_over_par)::int8 AS "moves_over_par!"
FROM stats_pars
WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
GROUP BY game, difficulty, par HAVING SUM(levels) > 0
ORDER BY par
