-- Player-calibrated difficulty (Glicko-2): each level and each player (per game) has a
-- rating, moved by every rated play (a client's first play of a level).
ALTER TABLE levels ADD COLUMN rating            DOUBLE PRECISION NOT NULL DEFAULT 1500;
ALTER TABLE levels ADD COLUMN rating_deviation  DOUBLE PRECISION NOT NULL DEFAULT 350;
ALTER TABLE levels ADD COLUMN rating_volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06;
ALTER TABLE levels ADD COLUMN rated_plays       INTEGER          NOT NULL DEFAULT 0;

CREATE TABLE players (
    game              TEXT             NOT NULL,
    client            TEXT             NOT NULL,
    rating            DOUBLE PRECISION NOT NULL DEFAULT 1500,
    rating_deviation  DOUBLE PRECISION NOT NULL DEFAULT 350,
    rating_volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06,
    rated_plays       INTEGER          NOT NULL DEFAULT 0,
    PRIMARY KEY (game, client)
);

-- Whether the play moved the ratings, and the level's rating after it.
ALTER TABLE plays ADD COLUMN rated        BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE plays ADD COLUMN level_rating DOUBLE PRECISION;

-- "Has this client played this level before?" on every play.
DROP INDEX plays_by_level;
CREATE INDEX plays_by_level_client ON plays (game, difficulty, seed, client);

-- Browsing by rating (rating_min / rating_max).
CREATE INDEX levels_by_rating ON levels (game, difficulty, rating);
