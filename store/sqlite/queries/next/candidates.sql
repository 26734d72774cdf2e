-- Stored levels of one game whose rating lies in [?2, ?3], nearest the target ?4 first,
-- that the player ?5 has neither played nor been served. `difficulty IN` walks
-- levels_by_rating (game, difficulty, rating) as one range per tier.
SELECT difficulty AS "difficulty!: String", seed AS "seed!: i64",
    rating AS "rating!: f64", rating_deviation AS "rating_deviation!: f64"
FROM levels l
WHERE game = ?1
    AND difficulty IN ('easy', 'medium', 'hard', 'expert')
    AND rating BETWEEN ?2 AND ?3
    AND NOT EXISTS (
        SELECT 1 FROM plays p
        WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
            AND p.client = ?5)
    AND NOT EXISTS (
        SELECT 1 FROM next_served s
        WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
            AND s.seed = l.seed)
ORDER BY abs(rating - ?4), difficulty, seed
LIMIT ?6
