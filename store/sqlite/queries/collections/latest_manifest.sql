SELECT v.version AS "version!: i64", v.manifest AS "manifest!: String"
FROM collections c
JOIN collection_versions v ON v.slug = c.slug AND v.version = c.latest_version
WHERE c.slug = ?1 AND c.listed
