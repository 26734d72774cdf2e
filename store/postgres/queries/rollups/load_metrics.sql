SELECT game, difficulty, version::int8 AS "version!", metric, levels, total, max
FROM stats_metrics
