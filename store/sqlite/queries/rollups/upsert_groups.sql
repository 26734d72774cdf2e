INSERT INTO stats_groups (game, difficulty, version, shard, levels, candidates,
    par_sum, states_sum, states_max, solutions_unique, solutions_max)
SELECT value ->> 0, value ->> 1, value ->> 2, ?1, value ->> 3, value ->> 4,
    value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
FROM json_each(?2) WHERE true
ON CONFLICT (game, difficulty, version, shard) DO UPDATE SET
    levels = levels + excluded.levels,
    candidates = candidates + excluded.candidates,
    par_sum = par_sum + excluded.par_sum,
    states_sum = states_sum + excluded.states_sum,
    solutions_unique = solutions_unique + excluded.solutions_unique,
    states_max = MAX(states_max, excluded.states_max),
    solutions_max = MAX(solutions_max, excluded.solutions_max)
