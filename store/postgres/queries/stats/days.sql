SELECT day, game, difficulty, SUM(plays)::int8 AS "plays!",
    SUM(won)::int8 AS "won!", SUM(moves_over_par)::int8 AS "moves_over_par!"
FROM stats_days
WHERE ($1::text IS NULL OR game = $1) AND ($2::text IS NULL OR difficulty = $2)
    AND day >= $3 AND day <= $4
GROUP BY day, game, difficulty
