SELECT measure, day, game, difficulty, version::int8 AS "version!",
    bucket::int8 AS "bucket!", count
FROM stats_sketches
