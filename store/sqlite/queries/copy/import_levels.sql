INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms, solve_ms,
    states, solution_count, metrics, level, created_at, rating, rating_deviation,
    rating_volatility, rated_plays, prior_rating)
SELECT value ->> 'game', value ->> 'difficulty', value ->> 'seed', value ->> 'version',
    value ->> 'par', value ->> 'attempts', value ->> 'generate_ms', value ->> 'solve_ms',
    value ->> 'states', value ->> 'solution_count', value ->> 'metrics', value ->> 'level',
    substr(value ->> 'created_at', 1, 19), value ->> 'rating', value ->> 'rating_deviation',
    value ->> 'rating_volatility', value ->> 'rated_plays', value ->> 'prior_rating'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
