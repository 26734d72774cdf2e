SELECT slug AS "slug!: String", version AS "version!: i64", position AS "position!: i64",
    game AS "game!: String", difficulty AS "difficulty!: String", seed AS "seed!: i64"
FROM collection_entries ORDER BY slug, version, position
