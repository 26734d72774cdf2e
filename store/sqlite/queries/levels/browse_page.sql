-- SQLite plans a statement once, whatever its parameters: a filter written as
-- `(?2 IS NULL OR difficulty = ?2)` would keep it off the index for every page. So the
-- one-tier page, the common one, is a branch of its own with a plain `difficulty = ?2`
-- and sargable bounds: it walks levels_by_par (game, difficulty, par, seed) in page order
-- and stops at the limit. The all-tiers branch sorts. A NULL or non-NULL ?2 leaves one
-- branch without rows before it reads any.
-- The mean rating of each (tier, par) comes from the rollup stats_pars, as the page's
-- rating_above_par does: averaging the levels themselves read every rated level.
WITH buckets AS (
    SELECT difficulty AS bucket_tier, par AS bucket_par,
        SUM(rating_micros) / 1e6 / SUM(rated_levels) AS par_rating
    FROM stats_pars WHERE ?9 IS NOT NULL AND game = ?1
    GROUP BY difficulty, par HAVING SUM(rated_levels) > 0
)
SELECT game AS "game!: String", difficulty AS "difficulty!: String", seed AS "seed!: i64",
    version AS "version!: i64", par AS "par!: i64", attempts AS "attempts!: i64",
    states AS "states!: i64", solution_count AS "solution_count!: i64",
    generate_ms AS "generate_ms!: i64", solve_ms AS "solve_ms!: i64",
    created_at AS "created_at!: String", rating AS "rating!: f64",
    rating_deviation AS "rating_deviation!: f64", rated_plays AS "rated_plays!: i64",
    prior_rating AS "prior_rating?: f64"
FROM (
    SELECT * FROM (
        SELECT game, difficulty, seed, version, par, attempts, states, solution_count,
            generate_ms, solve_ms, strftime('%Y-%m-%dT%H:%M:%SZ', created_at) AS created_at,
            rating, rating_deviation, rated_plays, prior_rating
        FROM levels LEFT JOIN buckets ON bucket_tier = difficulty AND bucket_par = par
        WHERE ?2 IS NOT NULL AND game = ?1 AND difficulty = ?2
            AND par >= IFNULL(?3, 0) AND par <= IFNULL(?4, 2147483647)
            AND (par, seed) > (IFNULL(?8, -1), IFNULL(?10, 0))
            AND (NOT ?5 OR rated_plays > 0)
            AND (?6 IS NULL OR rating >= ?6)
            AND (?7 IS NULL OR rating <= ?7)
            AND (?9 IS NULL OR rating - par_rating >= ?9)
            AND (?13 IS NULL OR abs(rating - prior_rating) >= ?13)
        ORDER BY par, seed
        LIMIT ?12
    )
    UNION ALL
    SELECT * FROM (
        SELECT game, difficulty, seed, version, par, attempts, states, solution_count,
            generate_ms, solve_ms, strftime('%Y-%m-%dT%H:%M:%SZ', created_at) AS created_at,
            rating, rating_deviation, rated_plays, prior_rating
        FROM levels LEFT JOIN buckets ON bucket_tier = difficulty AND bucket_par = par
        WHERE ?2 IS NULL AND game = ?1
            AND par >= IFNULL(?3, 0) AND par <= IFNULL(?4, 2147483647)
            AND (NOT ?5 OR rated_plays > 0)
            AND (?6 IS NULL OR rating >= ?6)
            AND (?7 IS NULL OR rating <= ?7)
            AND (?9 IS NULL OR rating - par_rating >= ?9)
            AND (?13 IS NULL OR abs(rating - prior_rating) >= ?13)
            AND (?8 IS NULL OR (par, seed, difficulty) > (?8, ?10, ?11))
        ORDER BY par, seed, difficulty
        LIMIT ?12
    )
)
ORDER BY par, seed, difficulty
