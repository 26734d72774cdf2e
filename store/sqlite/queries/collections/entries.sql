SELECT position AS "position!: i64", game AS "game!: String",
    difficulty AS "difficulty!: String", seed AS "seed!: i64"
FROM collection_entries WHERE slug = ?1 AND version = ?2
ORDER BY position
