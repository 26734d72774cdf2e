-- The levels GET /players/me/next has chosen for each player (docs/difficulty.md): the
-- primary key makes "never the same level twice" hold across replicas, since only one
-- insert of a (player, level) can succeed.
CREATE TABLE next_served (
    client     TEXT   NOT NULL,
    game       TEXT   NOT NULL,
    difficulty TEXT   NOT NULL,
    seed       BIGINT NOT NULL,
    served_at  BIGINT NOT NULL,
    PRIMARY KEY (client, game, difficulty, seed)
);
