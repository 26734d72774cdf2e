-- Stored levels of one game rated within [$2, $3], nearest the target $4 first, that the
-- player $5 has neither played nor been served. Each tier is read from levels_by_rating
-- (game, difficulty, rating) upwards and downwards from the target, at most $6 rows each
-- way, so the plays and served levels are probed only for the rows read, however many
-- levels the window holds.
SELECT c.difficulty AS "difficulty!", c.seed AS "seed!", c.rating AS "rating!",
    c.rating_deviation AS "rating_deviation!"
FROM unnest(ARRAY['easy', 'medium', 'hard', 'expert']) AS t (tier)
CROSS JOIN LATERAL (
    (SELECT difficulty, seed, rating, rating_deviation FROM levels l
    WHERE game = $1 AND difficulty = t.tier AND rating >= $4 AND rating <= $3
        AND NOT EXISTS (
            SELECT 1 FROM plays p
            WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                AND p.client = $5)
        AND NOT EXISTS (
            SELECT 1 FROM next_served s
            WHERE s.client = $5 AND s.game = l.game AND s.difficulty = l.difficulty
                AND s.seed = l.seed)
    ORDER BY rating LIMIT $6)
    UNION ALL
    (SELECT difficulty, seed, rating, rating_deviation FROM levels l
    WHERE game = $1 AND difficulty = t.tier AND rating < $4 AND rating >= $2
        AND NOT EXISTS (
            SELECT 1 FROM plays p
            WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                AND p.client = $5)
        AND NOT EXISTS (
            SELECT 1 FROM next_served s
            WHERE s.client = $5 AND s.game = l.game AND s.difficulty = l.difficulty
                AND s.seed = l.seed)
    ORDER BY rating DESC LIMIT $6)
) c
ORDER BY abs(c.rating - $4), c.difficulty, c.seed
LIMIT $6
