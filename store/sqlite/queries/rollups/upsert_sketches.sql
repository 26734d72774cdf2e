INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
    value ->> 5, value ->> 6
FROM json_each(?1) WHERE true
ON CONFLICT (measure, day, game, difficulty, version, bucket) DO UPDATE SET
    count = count + excluded.count
