SELECT (SELECT COUNT(*) FROM levels) AS "levels!",
    (SELECT COUNT(*) FROM plays) AS "plays!",
    (SELECT COUNT(*) FROM play_idempotency) AS "play_idempotency!",
    (SELECT COUNT(*) FROM players) AS "players!",
    (SELECT COUNT(*) FROM player_accounts) AS "player_accounts!",
    (SELECT COUNT(*) FROM api_keys) AS "api_keys!",
    (SELECT COUNT(*) FROM sessions) AS "sessions!",
    (SELECT COUNT(*) FROM next_served) AS "next_served!"
