SELECT slug AS "slug!: String", version AS "version!: i64", game AS "game!: String",
    title AS "title!: String", size AS "size!: i64", manifest AS "manifest!: String",
    published_at AS "published_at!: i64"
FROM collection_versions ORDER BY slug, version
