SELECT slug, latest_version::int8 AS "latest_version!", listed
FROM collections ORDER BY slug
