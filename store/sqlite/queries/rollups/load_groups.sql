SELECT game AS "game!", difficulty AS "difficulty!", version AS "version!",
    SUM(levels) AS "levels!: i64", SUM(candidates) AS "candidates!: i64", SUM(par_sum) AS "par_sum!: i64",
    SUM(states_sum) AS "states_sum!: i64", MAX(states_max) AS "states_max!: i64",
    SUM(solutions_unique) AS "solutions_unique!: i64",
    MAX(solutions_max) AS "solutions_max!: i64"
FROM stats_groups GROUP BY game, difficulty, version
