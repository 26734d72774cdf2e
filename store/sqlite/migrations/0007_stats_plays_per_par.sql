-- Same change as migrations/postgres: a play updates its level's par row, no longer its
-- group's; the group's play and rating figures are the sums of its par rows.
-- (SQLite's write lock holds off every writer meanwhile.)
ALTER TABLE stats_groups DROP COLUMN rated_levels;
ALTER TABLE stats_groups DROP COLUMN rating_micros;
ALTER TABLE stats_groups DROP COLUMN plays;
ALTER TABLE stats_groups DROP COLUMN won;
ALTER TABLE stats_groups DROP COLUMN moves_over_par;

ALTER TABLE stats_pars ADD COLUMN moves_over_par BIGINT NOT NULL DEFAULT 0;

-- Moves over par of won plays, per par, from the raw rows (shard 0 holds it all).
INSERT INTO stats_pars (game, difficulty, version, par, shard, moves_over_par)
SELECT l.game, l.difficulty, l.version, l.par, 0, SUM(p.moves_used - l.par)
FROM plays p JOIN levels l
    ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed
WHERE p.status = 'won'
GROUP BY l.game, l.difficulty, l.version, l.par
ON CONFLICT (game, difficulty, version, par, shard)
    DO UPDATE SET moves_over_par = excluded.moves_over_par;
