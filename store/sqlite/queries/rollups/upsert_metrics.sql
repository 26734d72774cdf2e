INSERT INTO stats_metrics (game, difficulty, version, metric, levels, total, max)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
    value ->> 5, value ->> 6
FROM json_each(?1) WHERE true
ON CONFLICT (game, difficulty, version, metric) DO UPDATE SET
    levels = levels + excluded.levels,
    total = total + excluded.total,
    max = MAX(max, excluded.max)
