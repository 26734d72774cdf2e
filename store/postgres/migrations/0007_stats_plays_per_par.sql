-- A play updates its level's par row, no longer its group's: the group's play and rating
-- figures are the sums of its par rows (readers add them, a few rows per group). That is
-- one row fewer per play, and no longer the row every play of a group updates.
--
-- The drop first: it waits for writers still using the old columns, and any that come
-- later fail and roll back, so the sums below see every play stored before.
ALTER TABLE stats_groups
    DROP COLUMN rated_levels,
    DROP COLUMN rating_micros,
    DROP COLUMN plays,
    DROP COLUMN won,
    DROP COLUMN moves_over_par;

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
