SELECT id AS "id!", game, difficulty, seed, solved_claimed AS "solved_claimed: bool", status,
    moves, moves_used, time_ms, client, created_at, rated AS "rated: bool", level_rating
FROM plays ORDER BY id
