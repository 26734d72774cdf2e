SELECT game, difficulty, seed, version, par, attempts, generate_ms, solve_ms, states,
    solution_count, metrics, level, created_at, rating, rating_deviation, rating_volatility,
    rated_plays, prior_rating
FROM levels ORDER BY game, difficulty, seed
