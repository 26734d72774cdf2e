-- Same tables as migrations/postgres, in SQLite's types.
-- Statistics kept as data arrives (GET /stats reads only these tables).
-- Every figure is a count, a sum or a max, moved in the transaction that stores the level
-- or play with `x = x + excluded.x` upserts, so concurrent writers never lose an update.
-- Rows that plays update are split over `shard`s (picked at random per transaction) so
-- that concurrent plays of one group do not queue on one row; readers add the shards.
-- Ratings are summed in millionths (`rating_micros`, truncated), so moving a rating
-- from r1 to r2 moves the sum exactly.

-- Per (game, tier, generator version): levels, their figures, their plays.
CREATE TABLE stats_groups (
    game             TEXT     NOT NULL,
    difficulty       TEXT     NOT NULL,
    version          INTEGER  NOT NULL,
    shard            INTEGER  NOT NULL,
    levels           BIGINT   NOT NULL DEFAULT 0,
    candidates       BIGINT   NOT NULL DEFAULT 0,
    par_sum          BIGINT   NOT NULL DEFAULT 0,
    states_sum       BIGINT   NOT NULL DEFAULT 0,
    states_max       BIGINT   NOT NULL DEFAULT 0,
    solutions_unique BIGINT   NOT NULL DEFAULT 0,
    solutions_max    BIGINT   NOT NULL DEFAULT 0,
    rated_levels     BIGINT   NOT NULL DEFAULT 0,
    rating_micros    BIGINT   NOT NULL DEFAULT 0,
    plays            BIGINT   NOT NULL DEFAULT 0,
    won              BIGINT   NOT NULL DEFAULT 0,
    moves_over_par   BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (game, difficulty, version, shard)
);

-- The exact par histogram, with each par's ratings and plays.
CREATE TABLE stats_pars (
    game          TEXT     NOT NULL,
    difficulty    TEXT     NOT NULL,
    version       INTEGER  NOT NULL,
    par           INTEGER  NOT NULL,
    shard         INTEGER  NOT NULL,
    levels        BIGINT   NOT NULL DEFAULT 0,
    rated_levels  BIGINT   NOT NULL DEFAULT 0,
    rating_micros BIGINT   NOT NULL DEFAULT 0,
    plays         BIGINT   NOT NULL DEFAULT 0,
    won           BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (game, difficulty, version, par, shard)
);

-- Every number or boolean (0/1) entry of the levels' `metrics`.
CREATE TABLE stats_metrics (
    game       TEXT             NOT NULL,
    difficulty TEXT             NOT NULL,
    version    INTEGER          NOT NULL,
    metric     TEXT             NOT NULL,
    levels     BIGINT           NOT NULL DEFAULT 0,
    total      DOUBLE PRECISION NOT NULL DEFAULT 0,
    max        DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, difficulty, version, metric)
);

-- Per-day plays (UTC days, 'YYYY-MM-DD').
CREATE TABLE stats_days (
    day            TEXT     NOT NULL,
    game           TEXT     NOT NULL,
    difficulty     TEXT     NOT NULL,
    version        INTEGER  NOT NULL,
    shard          INTEGER  NOT NULL,
    plays          BIGINT   NOT NULL DEFAULT 0,
    won            BIGINT   NOT NULL DEFAULT 0,
    moves_over_par BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (day, game, difficulty, version, shard)
);

-- Histograms: `generate_ms`, `solve_ms` and won plays' `time_ms` in the log buckets of
-- `stats_buckets` (all time: day ''; `time_ms` also per day), and level ratings in
-- tenths (`rating`, all time).
CREATE TABLE stats_sketches (
    measure    TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    game       TEXT    NOT NULL,
    difficulty TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    count      BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (measure, day, game, difficulty, version, bucket)
);

-- The log buckets (DDSketch): a whole number x >= 1 falls in the first bucket whose
-- `upper` (floor of gamma^bucket, gamma = 1.005 / 0.995) is >= x; 0 falls in bucket -1.
-- The service computes the same table by the same float steps.
CREATE TABLE stats_buckets (
    bucket INTEGER PRIMARY KEY,
    upper  BIGINT  NOT NULL
);
CREATE INDEX stats_buckets_by_upper ON stats_buckets (upper, bucket);

WITH RECURSIVE powers (bucket, g) AS (
    SELECT 0, CAST(1.0 AS DOUBLE PRECISION)
    UNION ALL
    SELECT bucket + 1, g * (CAST(1.005 AS DOUBLE PRECISION) / CAST(0.995 AS DOUBLE PRECISION))
    FROM powers WHERE g < 9.0e18
)
INSERT INTO stats_buckets (bucket, upper) SELECT bucket, CAST(g AS INTEGER) FROM powers;
