INSERT INTO collections (slug, latest_version, listed)
SELECT value ->> 'slug', value ->> 'latest_version', value ->> 'listed'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
