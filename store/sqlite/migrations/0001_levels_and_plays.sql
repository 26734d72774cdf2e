-- Same schema as migrations/postgres, in SQLite's types.
-- `seed` holds the u64 seed in an order-preserving i64 encoding (seed XOR 2^63).
CREATE TABLE levels (
    game           TEXT    NOT NULL,
    difficulty     TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    version        INTEGER NOT NULL,
    par            INTEGER NOT NULL,
    attempts       INTEGER NOT NULL,
    generate_ms    INTEGER NOT NULL,
    solve_ms       INTEGER NOT NULL,
    states         INTEGER NOT NULL,
    solution_count INTEGER NOT NULL,
    metrics        TEXT    NOT NULL,
    level          TEXT    NOT NULL,
    created_at     TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (game, difficulty, seed)
);

CREATE INDEX levels_by_par ON levels (game, difficulty, par, seed);

CREATE TABLE plays (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    game           TEXT    NOT NULL,
    difficulty     TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    solved_claimed INTEGER NOT NULL,
    status         TEXT    NOT NULL,
    moves          TEXT    NOT NULL,
    moves_used     INTEGER NOT NULL,
    time_ms        INTEGER,
    client         TEXT,
    created_at     TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (game, difficulty, seed) REFERENCES levels (game, difficulty, seed)
);

CREATE INDEX plays_by_level ON plays (game, difficulty, seed);
