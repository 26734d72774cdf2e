INSERT INTO collection_entries (slug, version, position, game, difficulty, seed)
SELECT value ->> 'slug', value ->> 'version', value ->> 'position', value ->> 'game',
    value ->> 'difficulty', value ->> 'seed'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
