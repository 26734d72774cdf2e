-- The rated levels whose rating lies farthest from their prior, either way: the ones
-- players find other than their figures predicted (browse's `sort=prior_gap`).
SELECT game, difficulty, seed, version::int8 AS "version!", par::int8 AS "par!",
    attempts::int8 AS "attempts!", states, solution_count, generate_ms, solve_ms,
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        AS "created_at!",
    rating, rating_deviation, rated_plays::int8 AS "rated_plays!",
    prior_rating AS "prior_rating?"
FROM levels
WHERE game = $1
    AND ($2::text IS NULL OR difficulty = $2)
    AND rated_plays > 0 AND prior_rating IS NOT NULL
    AND abs(rating - prior_rating) >= COALESCE($3::float8, 0)
ORDER BY abs(rating - prior_rating) DESC, seed, difficulty
LIMIT $4
