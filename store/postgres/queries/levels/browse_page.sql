-- Each filter is a parameter that may be NULL; PostgreSQL plans each call with its
-- values, so an absent filter costs nothing.
SELECT game, difficulty, seed, version::int8 AS "version!", par::int8 AS "par!",
    attempts::int8 AS "attempts!", states, solution_count, generate_ms, solve_ms,
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        AS "created_at!",
    rating, rating_deviation, rated_plays::int8 AS "rated_plays!",
    prior_rating AS "prior_rating?"
FROM levels
-- The mean rating of each (tier, par) comes from the rollup stats_pars, as the page's
-- rating_above_par does: averaging the levels themselves read every rated level.
LEFT JOIN (
    SELECT difficulty AS bucket_tier, par AS bucket_par,
        SUM(rating_micros)::float8 / 1e6 / SUM(rated_levels)::float8 AS par_rating
    FROM stats_pars WHERE $9::float8 IS NOT NULL AND game = $1
    GROUP BY difficulty, par HAVING SUM(rated_levels) > 0
) buckets ON bucket_tier = difficulty AND bucket_par = par
WHERE game = $1
    AND ($2::text IS NULL OR difficulty = $2)
    AND ($3::int4 IS NULL OR par >= $3)
    AND ($4::int4 IS NULL OR par <= $4)
    AND (NOT $5 OR rated_plays > 0)
    AND ($6::float8 IS NULL OR rating >= $6)
    AND ($7::float8 IS NULL OR rating <= $7)
    AND ($9::float8 IS NULL OR rating - par_rating >= $9)
    AND ($13::float8 IS NULL OR abs(rating - prior_rating) >= $13)
    AND ($8::int4 IS NULL OR (par, seed, difficulty) > ($8, $10, $11))
ORDER BY par, seed, difficulty
LIMIT $12
