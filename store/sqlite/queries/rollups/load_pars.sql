SELECT game, difficulty, version, par, SUM(levels) AS "levels!: i64",
    SUM(rated_levels) AS "rated_levels!: i64",
    SUM(rating_micros) AS "rating_micros!: i64", SUM(plays) AS "plays!: i64",
    SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
FROM stats_pars GROUP BY game, difficulty, version, par
