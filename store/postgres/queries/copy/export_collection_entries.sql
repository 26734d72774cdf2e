SELECT slug, version::int8 AS "version!", position::int8 AS "position!", game, difficulty,
    seed
FROM collection_entries ORDER BY slug, version, position
