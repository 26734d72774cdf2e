SELECT day, game, difficulty, SUM(plays) AS "plays!: i64",
    SUM(won) AS "won!: i64", SUM(moves_over_par) AS "moves_over_par!: i64"
FROM stats_days
WHERE (?1 IS NULL OR game = ?1) AND (?2 IS NULL OR difficulty = ?2)
    AND day >= ?3 AND day <= ?4
GROUP BY day, game, difficulty
