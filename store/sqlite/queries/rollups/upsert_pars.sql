INSERT INTO stats_pars (game, difficulty, version, par, shard, levels,
    rated_levels, rating_micros, plays, won, moves_over_par)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?1, value ->> 4,
    value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
FROM json_each(?2) WHERE true
ON CONFLICT (game, difficulty, version, par, shard) DO UPDATE SET
    levels = levels + excluded.levels,
    rated_levels = rated_levels + excluded.rated_levels,
    rating_micros = rating_micros + excluded.rating_micros,
    plays = plays + excluded.plays,
    won = won + excluded.won,
    moves_over_par = moves_over_par + excluded.moves_over_par
