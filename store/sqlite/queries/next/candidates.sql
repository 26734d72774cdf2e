-- Stored levels of one game rated within [?2, ?3], nearest the target ?4 first, that the
-- player ?5 has neither played nor been served. Each tier is read from levels_by_rating
-- (game, difficulty, rating) upwards and downwards from the target, at most ?6 rows each
-- way (eight branches: SQLite has no lateral join), so the plays and served levels are
-- probed only for the rows read, however many levels the window holds.
SELECT difficulty AS "difficulty!: String", seed AS "seed!: i64",
    rating AS "rating!: f64", rating_deviation AS "rating_deviation!: f64"
FROM (
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'easy' AND rating >= ?4 AND rating <= ?3
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating ASC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'easy' AND rating < ?4 AND rating >= ?2
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating DESC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'medium' AND rating >= ?4 AND rating <= ?3
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating ASC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'medium' AND rating < ?4 AND rating >= ?2
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating DESC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'hard' AND rating >= ?4 AND rating <= ?3
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating ASC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'hard' AND rating < ?4 AND rating >= ?2
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating DESC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'expert' AND rating >= ?4 AND rating <= ?3
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating ASC LIMIT ?6
    )
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels l
        WHERE game = ?1 AND difficulty = 'expert' AND rating < ?4 AND rating >= ?2
            AND NOT EXISTS (
                SELECT 1 FROM plays p
                WHERE p.game = l.game AND p.difficulty = l.difficulty AND p.seed = l.seed
                    AND p.client = ?5)
            AND NOT EXISTS (
                SELECT 1 FROM next_served s
                WHERE s.client = ?5 AND s.game = l.game AND s.difficulty = l.difficulty
                    AND s.seed = l.seed)
        ORDER BY rating DESC LIMIT ?6
    )
)
ORDER BY abs(rating - ?4), difficulty, seed
LIMIT ?6
