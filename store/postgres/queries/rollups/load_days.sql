SELECT day, game, difficulty, version::int8 AS "version!",
    SUM(plays)::int8 AS "plays!", SUM(won)::int8 AS "won!",
    SUM(moves_over_par)::int8 AS "moves_over_par!"
FROM stats_days GROUP BY day, game, difficulty, version
