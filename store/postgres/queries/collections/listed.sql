-- Every listed collection's latest version (at most $1 of them), by slug.
SELECT c.slug AS "slug!", v.title AS "title!", v.game AS "game!",
    v.version::int8 AS "version!", v.size::int8 AS "size!",
    v.published_at AS "published_at!"
FROM collections c
JOIN collection_versions v ON v.slug = c.slug AND v.version = c.latest_version
WHERE c.listed
ORDER BY c.slug
LIMIT $1
