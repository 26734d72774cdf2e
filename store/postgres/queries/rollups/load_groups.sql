SELECT game, difficulty, version::int8 AS "version!",
    SUM(levels)::int8 AS "levels!", SUM(candidates)::int8 AS "candidates!",
    SUM(par_sum)::int8 AS "par_sum!", SUM(states_sum)::int8 AS "states_sum!",
    MAX(states_max) AS "states_max!",
    SUM(solutions_unique)::int8 AS "solutions_unique!",
    MAX(solutions_max) AS "solutions_max!"
FROM stats_groups GROUP BY game, difficulty, version
