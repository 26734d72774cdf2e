SELECT game, difficulty, version::int8 AS "version!", par::int8 AS "par!",
    SUM(levels)::int8 AS "levels!", SUM(rated_levels)::int8 AS "rated_levels!",
    SUM(rating_micros)::int8 AS "rating_micros!", SUM(plays)::int8 AS "plays!",
    SUM(won)::int8 AS "won!", SUM(moves_over_par)::int8 AS "moves_over_par!"
FROM stats_pars GROUP BY game, difficulty, version, par
