INSERT INTO plays (id, game, difficulty, seed, solved_claimed, status, moves, moves_used,
    time_ms, client, created_at, rated, level_rating)
SELECT id, game, difficulty, seed, solved_claimed, status, moves, moves_used, time_ms,
    client, created_at::timestamp AT TIME ZONE 'UTC', rated, level_rating
FROM jsonb_to_recordset($1::text::jsonb) AS r (id bigint, game text, difficulty text,
    seed bigint, solved_claimed boolean, status text, moves text, moves_used integer,
    time_ms bigint, client text, created_at text, rated boolean,
    level_rating double precision)
ON CONFLICT DO NOTHING
