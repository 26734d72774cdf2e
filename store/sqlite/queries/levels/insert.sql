-- A new level starts at its predicted rating (?13), with the default wide deviation.
INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms,
    solve_ms, states, solution_count, metrics, level, prior_rating, rating)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)
ON CONFLICT (game, difficulty, seed) DO NOTHING
