-- Which entries of a version the player ?3 has played, and won (plays_by_level_client).
SELECT e.position AS "position!: i64", e.game AS "game!: String",
    e.difficulty AS "difficulty!: String", e.seed AS "seed!: i64",
    EXISTS (SELECT 1 FROM plays p WHERE p.game = e.game AND p.difficulty = e.difficulty
        AND p.seed = e.seed AND p.client = ?3) AS "played!: bool",
    EXISTS (SELECT 1 FROM plays p WHERE p.game = e.game AND p.difficulty = e.difficulty
        AND p.seed = e.seed AND p.client = ?3 AND p.status = 'won') AS "won!: bool"
FROM collection_entries e
WHERE e.slug = ?1 AND e.version = ?2
ORDER BY e.position
