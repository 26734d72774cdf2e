SELECT version AS "version!: i64", manifest AS "manifest!: String"
FROM collection_versions WHERE slug = ?1 AND version = ?2
