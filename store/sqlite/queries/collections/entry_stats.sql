-- How each entry of a version plays: every play of its level, wherever it was played
-- from (plays_by_level), and the level's rating and prior.
SELECT e.position AS "position!: i64", e.game AS "game!: String",
    e.difficulty AS "difficulty!: String", e.seed AS "seed!: i64", l.par AS "par!: i64",
    l.rating AS "rating!: f64", l.rated_plays AS "rated_plays!: i64",
    l.prior_rating AS "prior_rating?: f64",
    COUNT(p.id) AS "plays!: i64",
    COUNT(p.id) FILTER (WHERE p.status = 'won') AS "won!: i64",
    IFNULL(SUM(p.moves_used - l.par) FILTER (WHERE p.status = 'won'), 0)
        AS "won_moves_over_par!: i64"
FROM collection_entries e
JOIN levels l ON l.game = e.game AND l.difficulty = e.difficulty AND l.seed = e.seed
LEFT JOIN plays p ON p.game = e.game AND p.difficulty = e.difficulty AND p.seed = e.seed
WHERE e.slug = ?1 AND e.version = ?2
GROUP BY e.position, e.game, e.difficulty, e.seed
ORDER BY e.position
