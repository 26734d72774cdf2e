-- Stored levels of one game rated within [?2, ?3], nearest the target ?4 first, that the
-- player ?5 has neither played nor been served (`met`). Each tier is read from
-- levels_by_rating (game, difficulty, rating) upwards and downwards from the target, at
-- most ?6 rows each way (a branch per tier and way: SQLite has no lateral join), so the
-- cost does not grow with the levels the window holds.
-- `+game` keeps SQLite on plays_by_client (a player's plays) rather than the game's
-- (game, difficulty, seed, client) index, which would read every play of the game.
WITH met AS (
    SELECT difficulty, seed FROM plays WHERE client = ?5 AND +game = ?1
    UNION
    SELECT difficulty, seed FROM next_served WHERE client = ?5 AND game = ?1
)
SELECT difficulty AS "difficulty!: String", seed AS "seed!: i64",
    rating AS "rating!: f64", rating_deviation AS "rating_deviation!: f64"
FROM (
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'easy' AND rating >= ?4 AND rating <= ?3
            AND (difficulty, seed) NOT IN met
        ORDER BY rating ASC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'easy' AND rating < ?4 AND rating >= ?2
            AND (difficulty, seed) NOT IN met
        ORDER BY rating DESC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'medium' AND rating >= ?4 AND rating <= ?3
            AND (difficulty, seed) NOT IN met
        ORDER BY rating ASC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'medium' AND rating < ?4 AND rating >= ?2
            AND (difficulty, seed) NOT IN met
        ORDER BY rating DESC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'hard' AND rating >= ?4 AND rating <= ?3
            AND (difficulty, seed) NOT IN met
        ORDER BY rating ASC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'hard' AND rating < ?4 AND rating >= ?2
            AND (difficulty, seed) NOT IN met
        ORDER BY rating DESC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'expert' AND rating >= ?4 AND rating <= ?3
            AND (difficulty, seed) NOT IN met
        ORDER BY rating ASC LIMIT ?6)
    UNION ALL
    SELECT * FROM (
        SELECT difficulty, seed, rating, rating_deviation FROM levels
        WHERE game = ?1 AND difficulty = 'expert' AND rating < ?4 AND rating >= ?2
            AND (difficulty, seed) NOT IN met
        ORDER BY rating DESC LIMIT ?6)
)
ORDER BY abs(rating - ?4), difficulty, seed
LIMIT ?6
