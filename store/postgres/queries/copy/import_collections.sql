INSERT INTO collections (slug, latest_version, listed)
SELECT slug, latest_version, listed
FROM jsonb_to_recordset($1::text::jsonb) AS r (slug text, latest_version integer,
    listed boolean)
ON CONFLICT DO NOTHING
