-- Every listed collection's latest version (at most ?1 of them), by slug.
SELECT c.slug AS "slug!: String", v.title AS "title!: String", v.game AS "game!: String",
    v.version AS "version!: i64", v.size AS "size!: i64",
    v.published_at AS "published_at!: i64"
FROM collections c
JOIN collection_versions v ON v.slug = c.slug AND v.version = c.latest_version
WHERE c.listed
ORDER BY c.slug
LIMIT ?1
