INSERT INTO collection_versions (slug, version, game, title, size, manifest, published_at)
SELECT slug, version, game, title, size, manifest, published_at
FROM jsonb_to_recordset($1::text::jsonb) AS r (slug text, version integer, game text,
    title text, size integer, manifest text, published_at bigint)
ON CONFLICT DO NOTHING
