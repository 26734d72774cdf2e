SELECT id, game, difficulty, seed, solved_claimed, status, moves,
    moves_used::int8 AS "moves_used!", time_ms, client,
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "created_at!",
    rated, level_rating
FROM plays ORDER BY id
