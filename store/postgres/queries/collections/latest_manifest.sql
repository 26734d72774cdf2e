SELECT v.version::int8 AS "version!", v.manifest AS "manifest!"
FROM collections c
JOIN collection_versions v ON v.slug = c.slug AND v.version = c.latest_version
WHERE c.slug = $1 AND c.listed
