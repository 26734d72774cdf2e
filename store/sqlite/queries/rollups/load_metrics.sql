SELECT game, difficulty, version, metric, levels, total, max FROM stats_metrics
