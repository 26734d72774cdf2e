INSERT INTO collection_entries (slug, version, position, game, difficulty, seed)
VALUES ($1, $2, $3, $4, $5, $6)
