INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms, solve_ms,
    states, solution_count, metrics, level, created_at, rating, rating_deviation,
    rating_volatility, rated_plays, prior_rating)
SELECT game, difficulty, seed, version, par, attempts, generate_ms, solve_ms, states,
    solution_count, metrics, level, created_at::timestamp AT TIME ZONE 'UTC', rating,
    rating_deviation, rating_volatility, rated_plays, prior_rating
FROM jsonb_to_recordset($1::text::jsonb) AS r (game text, difficulty text, seed bigint,
    version integer, par integer, attempts integer, generate_ms bigint, solve_ms bigint,
    states bigint, solution_count bigint, metrics text, level text, created_at text,
    rating double precision, rating_deviation double precision,
    rating_volatility double precision, rated_plays integer, prior_rating double precision)
ON CONFLICT DO NOTHING
