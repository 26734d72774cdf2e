INSERT INTO collection_versions (slug, version, game, title, size, manifest, published_at)
SELECT value ->> 'slug', value ->> 'version', value ->> 'game', value ->> 'title',
    value ->> 'size', value ->> 'manifest', value ->> 'published_at'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
