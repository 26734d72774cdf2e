SELECT version::int8 AS "version!", manifest FROM collection_versions WHERE slug = $1 AND version = $2
