-- How each entry of a version plays: every play of its level, wherever it was played
-- from (plays_by_level), and the level's rating and prior.
SELECT e.position::int8 AS "position!", e.game AS "game!", e.difficulty AS "difficulty!",
    e.seed AS "seed!", l.par::int8 AS "par!",
    l.rating AS "rating!", l.rated_plays::int8 AS "rated_plays!",
    l.prior_rating AS "prior_rating?",
    COUNT(p.id) AS "plays!",
    COUNT(p.id) FILTER (WHERE p.status = 'won') AS "won!",
    COALESCE(SUM(p.moves_used - l.par) FILTER (WHERE p.status = 'won'), 0)::BIGINT
        AS "won_moves_over_par!"
FROM collection_entries e
JOIN levels l ON l.game = e.game AND l.difficulty = e.difficulty AND l.seed = e.seed
LEFT JOIN plays p ON p.game = e.game AND p.difficulty = e.difficulty AND p.seed = e.seed
WHERE e.slug = $1 AND e.version = $2
GROUP BY e.position, e.game, e.difficulty, e.seed, l.par, l.rating, l.rated_plays,
    l.prior_rating
ORDER BY e.position
