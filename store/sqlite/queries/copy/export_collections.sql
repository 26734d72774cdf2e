SELECT slug AS "slug!: String", latest_version AS "latest_version!: i64",
    listed AS "listed!: bool"
FROM collections ORDER BY slug
