INSERT INTO plays (id, game, difficulty, seed, solved_claimed, status, moves, moves_used,
    time_ms, client, created_at, rated, level_rating)
SELECT value ->> 'id', value ->> 'game', value ->> 'difficulty', value ->> 'seed',
    value ->> 'solved_claimed', value ->> 'status', value ->> 'moves', value ->> 'moves_used',
    value ->> 'time_ms', value ->> 'client', substr(value ->> 'created_at', 1, 19),
    value ->> 'rated', value ->> 'level_rating'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
