-- Fills the rollups of 0005 from the levels and plays stored before them; from then on
-- the service keeps them. `levelforge stats` checks them against a recomputation.

INSERT INTO stats_groups (game, difficulty, version, shard, levels, candidates, par_sum,
    states_sum, states_max, solutions_unique, solutions_max, rated_levels, rating_micros)
SELECT game, difficulty, version, 0, COUNT(*), SUM(attempts), SUM(par), SUM(states),
    MAX(states), SUM(CASE WHEN solution_count = 1 THEN 1 ELSE 0 END), MAX(solution_count),
    SUM(CASE WHEN rated_plays > 0 THEN 1 ELSE 0 END),
    SUM(CASE WHEN rated_plays > 0 THEN CAST(rating * 1000000 AS INTEGER) ELSE 0 END)
FROM levels GROUP BY game, difficulty, version;

INSERT INTO stats_pars (game, difficulty, version, par, shard, levels, rated_levels, rating_micros)
SELECT game, difficulty, version, par, 0, COUNT(*),
    SUM(CASE WHEN rated_plays > 0 THEN 1 ELSE 0 END),
    SUM(CASE WHEN rated_plays > 0 THEN CAST(rating * 1000000 AS INTEGER) ELSE 0 END)
FROM levels GROUP BY game, difficulty, version, par;

-- Plays by the level's group and par (par_plays), then by day (day_plays).
CREATE TEMPORARY TABLE backfill_plays AS
SELECT l.game, l.difficulty, l.version, l.par, substr(p.created_at, 1, 10) AS day, p.status, p.time_ms,
    CASE WHEN p.status = 'won' THEN 1 ELSE 0 END AS won,
    CASE WHEN p.status = 'won' THEN p.moves_used - l.par ELSE 0 END AS moves_over_par
FROM plays p JOIN levels l
    ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed;

UPDATE stats_pars SET plays = agg.plays, won = agg.won
FROM (SELECT game, difficulty, version, par, COUNT(*) AS plays, SUM(won) AS won
      FROM backfill_plays GROUP BY game, difficulty, version, par) AS agg
WHERE stats_pars.game = agg.game AND stats_pars.difficulty = agg.difficulty
    AND stats_pars.version = agg.version AND stats_pars.par = agg.par AND stats_pars.shard = 0;

UPDATE stats_groups SET plays = agg.plays, won = agg.won, moves_over_par = agg.moves_over_par
FROM (SELECT game, difficulty, version, COUNT(*) AS plays, SUM(won) AS won,
          SUM(moves_over_par) AS moves_over_par
      FROM backfill_plays GROUP BY game, difficulty, version) AS agg
WHERE stats_groups.game = agg.game AND stats_groups.difficulty = agg.difficulty
    AND stats_groups.version = agg.version AND stats_groups.shard = 0;

INSERT INTO stats_days (day, game, difficulty, version, shard, plays, won, moves_over_par)
SELECT day, game, difficulty, version, 0, COUNT(*), SUM(won), SUM(moves_over_par)
FROM backfill_plays GROUP BY day, game, difficulty, version;

INSERT INTO stats_metrics (game, difficulty, version, metric, levels, total, max)
SELECT game, difficulty, version, metric, COUNT(*), SUM(value), MAX(value)
FROM (SELECT game, difficulty, version, entry.key AS metric,
          CASE entry.type
              WHEN 'integer' THEN CAST(entry.value AS REAL)
              WHEN 'real' THEN entry.value
              WHEN 'true' THEN 1.0
              WHEN 'false' THEN 0.0
          END AS value
      FROM levels, json_each(levels.metrics) AS entry) AS metric_values
WHERE value IS NOT NULL
GROUP BY game, difficulty, version, metric;

-- Histograms: each distinct value once, then its bucket.
CREATE TEMPORARY TABLE backfill_values AS
SELECT 'generate_ms' AS measure, '' AS day, game, difficulty, version, generate_ms AS value,
    COUNT(*) AS n
FROM levels GROUP BY game, difficulty, version, generate_ms
UNION ALL
SELECT 'solve_ms', '', game, difficulty, version, solve_ms, COUNT(*)
FROM levels GROUP BY game, difficulty, version, solve_ms
UNION ALL
SELECT 'time_ms', '', game, difficulty, version, time_ms, COUNT(*)
FROM backfill_plays WHERE status = 'won' AND time_ms IS NOT NULL
GROUP BY game, difficulty, version, time_ms
UNION ALL
SELECT 'time_ms', day, game, difficulty, version, time_ms, COUNT(*)
FROM backfill_plays WHERE status = 'won' AND time_ms IS NOT NULL
GROUP BY day, game, difficulty, version, time_ms;

INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count)
SELECT measure, day, game, difficulty, version, bucket, SUM(n)
FROM (SELECT measure, day, game, difficulty, version, n,
          CASE WHEN value <= 0 THEN -1 ELSE
              (SELECT b.bucket FROM stats_buckets b WHERE b.upper >= value
               ORDER BY b.upper, b.bucket LIMIT 1) END AS bucket
      FROM backfill_values) AS bucketed
GROUP BY measure, day, game, difficulty, version, bucket;

-- Level ratings in tenths (rated levels only).
INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count)
SELECT 'rating', '', game, difficulty, version, CAST(rating * 10 AS INTEGER), COUNT(*)
FROM levels WHERE rated_plays > 0
GROUP BY game, difficulty, version, CAST(rating * 10 AS INTEGER);

DROP TABLE backfill_plays;
DROP TABLE backfill_values;
