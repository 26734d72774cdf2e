-- The rollup tables as WITHOUT ROWID tables: each row lives in its primary key's B-tree,
-- so an upsert looks up and writes one B-tree instead of the key's index and then the
-- table. Every play upserts several such rows while holding SQLite's one write lock.
-- Same columns, same rows.

CREATE TABLE stats_groups_new (
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
    PRIMARY KEY (game, difficulty, version, shard)
) WITHOUT ROWID;
INSERT INTO stats_groups_new (game, difficulty, version, shard, levels, candidates, par_sum,
    states_sum, states_max, solutions_unique, solutions_max)
SELECT game, difficulty, version, shard, levels, candidates, par_sum,
    states_sum, states_max, solutions_unique, solutions_max FROM stats_groups;
DROP TABLE stats_groups;
ALTER TABLE stats_groups_new RENAME TO stats_groups;

CREATE TABLE stats_pars_new (
    game           TEXT     NOT NULL,
    difficulty     TEXT     NOT NULL,
    version        INTEGER  NOT NULL,
    par            INTEGER  NOT NULL,
    shard          INTEGER  NOT NULL,
    levels         BIGINT   NOT NULL DEFAULT 0,
    rated_levels   BIGINT   NOT NULL DEFAULT 0,
    rating_micros  BIGINT   NOT NULL DEFAULT 0,
    plays          BIGINT   NOT NULL DEFAULT 0,
    won            BIGINT   NOT NULL DEFAULT 0,
    moves_over_par BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (game, difficulty, version, par, shard)
) WITHOUT ROWID;
INSERT INTO stats_pars_new (game, difficulty, version, par, shard, levels, rated_levels,
    rating_micros, plays, won, moves_over_par)
SELECT game, difficulty, version, par, shard, levels, rated_levels,
    rating_micros, plays, won, moves_over_par FROM stats_pars;
DROP TABLE stats_pars;
ALTER TABLE stats_pars_new RENAME TO stats_pars;

CREATE TABLE stats_metrics_new (
    game       TEXT             NOT NULL,
    difficulty TEXT             NOT NULL,
    version    INTEGER          NOT NULL,
    metric     TEXT             NOT NULL,
    levels     BIGINT           NOT NULL DEFAULT 0,
    total      DOUBLE PRECISION NOT NULL DEFAULT 0,
    max        DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, difficulty, version, metric)
) WITHOUT ROWID;
INSERT INTO stats_metrics_new (game, difficulty, version, metric, levels, total, max)
SELECT game, difficulty, version, metric, levels, total, max FROM stats_metrics;
DROP TABLE stats_metrics;
ALTER TABLE stats_metrics_new RENAME TO stats_metrics;

CREATE TABLE stats_days_new (
    day            TEXT     NOT NULL,
    game           TEXT     NOT NULL,
    difficulty     TEXT     NOT NULL,
    version        INTEGER  NOT NULL,
    shard          INTEGER  NOT NULL,
    plays          BIGINT   NOT NULL DEFAULT 0,
    won            BIGINT   NOT NULL DEFAULT 0,
    moves_over_par BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (day, game, difficulty, version, shard)
) WITHOUT ROWID;
INSERT INTO stats_days_new (day, game, difficulty, version, shard, plays, won, moves_over_par)
SELECT day, game, difficulty, version, shard, plays, won, moves_over_par FROM stats_days;
DROP TABLE stats_days;
ALTER TABLE stats_days_new RENAME TO stats_days;

CREATE TABLE stats_sketches_new (
    measure    TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    game       TEXT    NOT NULL,
    difficulty TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    count      BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (measure, day, game, difficulty, version, bucket)
) WITHOUT ROWID;
INSERT INTO stats_sketches_new (measure, day, game, difficulty, version, bucket, count)
SELECT measure, day, game, difficulty, version, bucket, count FROM stats_sketches;
DROP TABLE stats_sketches;
ALTER TABLE stats_sketches_new RENAME TO stats_sketches;
