SELECT slug, version::int8 AS "version!", game, title, size::int8 AS "size!", manifest,
    published_at
FROM collection_versions ORDER BY slug, version
