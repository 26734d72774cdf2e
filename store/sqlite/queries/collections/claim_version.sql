-- The collection's next version number (1 for a new slug), listing it again. The write
-- transaction (BEGIN IMMEDIATE) holds off a concurrent publication until this one commits.
INSERT INTO collections (slug, latest_version, listed) VALUES (?1, 1, 1)
ON CONFLICT (slug) DO UPDATE
    SET latest_version = collections.latest_version + 1, listed = 1
RETURNING latest_version AS "version!: i64"
