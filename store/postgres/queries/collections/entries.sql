SELECT position::int8 AS "position!", game, difficulty, seed
FROM collection_entries WHERE slug = $1 AND version = $2
ORDER BY position
