SELECT game, difficulty, version::int8 AS "version!", par::int8 AS "par!",
    attempts::int8 AS "attempts!", generate_ms, solve_ms, states, solution_count,
    metrics, rating, rated_plays::int8 AS "rated_plays!"
FROM levels
