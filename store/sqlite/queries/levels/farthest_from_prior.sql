-- The rated levels whose rating lies farthest from their prior, either way: the ones
-- players find other than their figures predicted (browse's `sort=prior_gap`).
SELECT game AS "game!: String", difficulty AS "difficulty!: String", seed AS "seed!: i64",
    version AS "version!: i64", par AS "par!: i64", attempts AS "attempts!: i64",
    states AS "states!: i64", solution_count AS "solution_count!: i64",
    generate_ms AS "generate_ms!: i64", solve_ms AS "solve_ms!: i64",
    strftime('%Y-%m-%dT%H:%M:%SZ', created_at) AS "created_at!: String",
    rating AS "rating!: f64", rating_deviation AS "rating_deviation!: f64",
    rated_plays AS "rated_plays!: i64", prior_rating AS "prior_rating?: f64"
FROM levels
WHERE game = ?1
    AND (?2 IS NULL OR difficulty = ?2)
    AND rated_plays > 0 AND prior_rating IS NOT NULL
    AND abs(rating - prior_rating) >= IFNULL(?3, 0)
ORDER BY abs(rating - prior_rating) DESC, seed, difficulty
LIMIT ?4
