-- Stored levels of one game rated within [$2, $3], nearest the target $4 first, that the
-- player $5 has neither played nor been served (`met`). Each tier is read from
-- levels_by_rating (game, difficulty, rating) upwards and downwards from the target, at
-- most $6 rows each way, so the cost does not grow with the levels the window holds.
WITH met AS (
    SELECT difficulty, seed FROM plays WHERE client = $5 AND game = $1
    UNION
    SELECT difficulty, seed FROM next_served WHERE client = $5 AND game = $1
)
SELECT c.difficulty AS "difficulty!", c.seed AS "seed!", c.rating AS "rating!",
    c.rating_deviation AS "rating_deviation!"
FROM unnest(ARRAY['easy', 'medium', 'hard', 'expert']) AS t (tier)
CROSS JOIN LATERAL (
    (SELECT difficulty, seed, rating, rating_deviation FROM levels
    WHERE game = $1 AND difficulty = t.tier AND rating >= $4 AND rating <= $3
        AND (difficulty, seed) NOT IN (SELECT difficulty, seed FROM met)
    ORDER BY rating LIMIT $6)
    UNION ALL
    (SELECT difficulty, seed, rating, rating_deviation FROM levels
    WHERE game = $1 AND difficulty = t.tier AND rating < $4 AND rating >= $2
        AND (difficulty, seed) NOT IN (SELECT difficulty, seed FROM met)
    ORDER BY rating DESC LIMIT $6)
) c
ORDER BY abs(c.rating - $4), c.difficulty, c.seed
LIMIT $6
