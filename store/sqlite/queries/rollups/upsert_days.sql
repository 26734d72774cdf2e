INSERT INTO stats_days (day, game, difficulty, version, shard, plays, won,
    moves_over_par)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?1, value ->> 4,
    value ->> 5, value ->> 6
FROM json_each(?2) WHERE true
ON CONFLICT (day, game, difficulty, version, shard) DO UPDATE SET
    plays = plays + excluded.plays,
    won = won + excluded.won,
    moves_over_par = moves_over_par + excluded.moves_over_par
