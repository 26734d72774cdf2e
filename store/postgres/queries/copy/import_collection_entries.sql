INSERT INTO collection_entries (slug, version, position, game, difficulty, seed)
SELECT slug, version, position, game, difficulty, seed
FROM jsonb_to_recordset($1::text::jsonb) AS r (slug text, version integer,
    position integer, game text, difficulty text, seed bigint)
ON CONFLICT DO NOTHING
