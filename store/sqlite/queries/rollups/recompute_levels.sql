SELECT game, difficulty, version, par, attempts, generate_ms, solve_ms, states,
    solution_count, metrics, rating, rated_plays
FROM levels
