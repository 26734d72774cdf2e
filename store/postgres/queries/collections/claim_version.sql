-- The collection's next version number (1 for a new slug), listing it again. The row lock
-- holds off a concurrent publication of the same slug until this one commits.
INSERT INTO collections (slug, latest_version, listed) VALUES ($1, 1, TRUE)
ON CONFLICT (slug) DO UPDATE
    SET latest_version = collections.latest_version + 1, listed = TRUE
RETURNING latest_version::int8 AS "version!"
