INSERT INTO collection_versions (slug, version, game, title, size, manifest, published_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
