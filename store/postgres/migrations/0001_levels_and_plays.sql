-- Accepted levels: one row per key, written once, served as stored forever.
-- `seed` holds the u64 seed in an order-preserving i64 encoding (seed XOR 2^63).
CREATE TABLE levels (
    game           TEXT        NOT NULL,
    difficulty     TEXT        NOT NULL,
    seed           BIGINT      NOT NULL,
    version        INTEGER     NOT NULL,
    par            INTEGER     NOT NULL,
    attempts       INTEGER     NOT NULL,
    generate_ms    BIGINT      NOT NULL,
    solve_ms       BIGINT      NOT NULL,
    states         BIGINT      NOT NULL,
    solution_count BIGINT      NOT NULL,
    metrics        TEXT        NOT NULL, -- the level's `metrics` object as JSON text
    level          TEXT        NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game, difficulty, seed)
);

CREATE INDEX levels_by_par ON levels (game, difficulty, par, seed);

-- Player results, each replayed by the server before it is stored.
CREATE TABLE plays (
    id             BIGSERIAL   PRIMARY KEY,
    game           TEXT        NOT NULL,
    difficulty     TEXT        NOT NULL,
    seed           BIGINT      NOT NULL,
    solved_claimed BOOLEAN     NOT NULL,
    status         TEXT        NOT NULL,
    moves          TEXT        NOT NULL,
    moves_used     INTEGER     NOT NULL,
    time_ms        BIGINT,
    client         TEXT,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    FOREIGN KEY (game, difficulty, seed) REFERENCES levels (game, difficulty, seed)
);

CREATE INDEX plays_by_level ON plays (game, difficulty, seed);
