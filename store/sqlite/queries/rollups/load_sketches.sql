SELECT measure, day, game, difficulty, version, bucket, count FROM stats_sketches
