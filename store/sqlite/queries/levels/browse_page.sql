SELECT game AS "game!", difficulty AS "difficulty!", seed AS "seed!",
    version AS "version!", par AS "par!", attempts AS "attempts!",
    states AS "states!", solution_count AS "solution_count!",
    generate_ms AS "generate_ms!", solve_ms AS "solve_ms!",
    strftime('%Y-%m-%dT%H:%M:%SZ', created_at) AS "created_at!: String",
    rating AS "rating!", rating_deviation AS "rating_deviation!",
    rated_plays AS "rated_plays!"
FROM levels
LEFT JOIN (
    SELECT difficulty AS bucket_tier, par AS bucket_par, AVG(rating) AS par_rating
    FROM levels WHERE ?9 IS NOT NULL AND rated_plays > 0 AND game = ?1
    GROUP BY difficulty, par
) buckets ON bucket_tier = difficulty AND bucket_par = par
WHERE game = ?1
    AND (?2 IS NULL OR difficulty = ?2)
    AND (?3 IS NULL OR par >= ?3)
    AND (?4 IS NULL OR par <= ?4)
    AND (NOT ?5 OR rated_plays > 0)
    AND (?6 IS NULL OR rating >= ?6)
    AND (?7 IS NULL OR rating <= ?7)
    AND (?9 IS NULL OR rating - par_rating >= ?9)
    AND (?8 IS NULL OR (par, seed, difficulty) > (?8, ?10, ?11))
ORDER BY par, seed, difficulty
LIMIT ?12
