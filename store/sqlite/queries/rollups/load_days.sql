SELECT day, game, difficulty, version, SUM(plays) AS "plays!: i64",
    SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
FROM stats_days GROUP BY day, game, difficulty, version
