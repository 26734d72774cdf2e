SELECT game, difficulty, seed, version::int8 AS "version!", par::int8 AS "par!",
    attempts::int8 AS "attempts!", generate_ms, solve_ms, states, solution_count, metrics,
    level, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "created_at!",
    rating, rating_deviation, rating_volatility, rated_plays::int8 AS "rated_plays!",
    prior_rating
FROM levels ORDER BY game, difficulty, seed
