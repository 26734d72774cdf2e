-- Player-calibrated difficulty (Glicko-2): each level and each player (per game) has a
-- rating, moved by every rated play (a client's first play of a level).
ALTER TABLE levels ADD COLUMN rating            REAL             NOT NULL DEFAULT 1500;
ALTER TABLE levels ADD COLUMN rating_deviation  REAL             NOT NULL DEFAULT 350;
ALTER TABLE levels ADD COLUMN rating_volatility REAL             NOT NULL DEFAULT 0.06;
ALTER TABLE levels ADD COLUMN rated_plays       INTEGER          NOT NULL DEFAULT 0;

CREATE TABLE players (
    game              TEXT             NOT NULL,
    client            TEXT             NOT NULL,
    rating            REAL             NOT NULL DEFAULT 1500,
    rating_deviation  REAL             NOT NULL DEFAULT 350,
    rating_volatility REAL             NOT NULL DEFAULT 0.06,
    rated_plays       INTEGER          NOT NULL DEFAULT 0,
    PRIMARY KEY (game, client)
);

-- Whether the play moved the ratings, and the level's rating after it.
ALTER TABLE plays ADD COLUMN rated        INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plays ADD COLUMN level_rating REAL            ;

-- "Has this client played this level before?" on every play.
DROP INDEX plays_by_level;
CREATE INDEX plays_by_level_client ON plays (game, difficulty, seed, client);

-- Browsing by rating (rating_min / rating_max).
CREATE INDEX levels_by_rating ON levels (game, difficulty, rating);

-- SQLite has no percentile_disc: /stats reads each nearest rank from these indexes.
CREATE INDEX levels_by_generate_ms ON levels (game, difficulty, generate_ms);
CREATE INDEX levels_by_solve_ms ON levels (game, difficulty, solve_ms);
CREATE INDEX plays_by_time ON plays (game, difficulty, status, time_ms);
