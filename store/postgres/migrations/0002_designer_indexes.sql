-- Browsing every tier of a game in (par, seed, difficulty) order (GET /levels without
-- `difficulty`); with one tier the primary key's sibling `levels_by_par` serves.
CREATE INDEX levels_by_game_par ON levels (game, par, seed, difficulty);

-- Play statistics per tier and replay status (GET /stats).
CREATE INDEX plays_by_status ON plays (game, difficulty, status);
