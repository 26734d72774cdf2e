-- Which entries of a version the player $3 has played, and won (plays_by_level_client).
SELECT e.position::int8 AS "position!", e.game AS "game!", e.difficulty AS "difficulty!",
    e.seed AS "seed!",
    EXISTS (SELECT 1 FROM plays p WHERE p.game = e.game AND p.difficulty = e.difficulty
        AND p.seed = e.seed AND p.client = $3) AS "played!",
    EXISTS (SELECT 1 FROM plays p WHERE p.game = e.game AND p.difficulty = e.difficulty
        AND p.seed = e.seed AND p.client = $3 AND p.status = 'won') AS "won!"
FROM collection_entries e
WHERE e.slug = $1 AND e.version = $2
ORDER BY e.position
