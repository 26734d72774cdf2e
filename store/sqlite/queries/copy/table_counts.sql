SELECT (SELECT COUNT(*) FROM levels) AS "levels!: i64",
    (SELECT COUNT(*) FROM plays) AS "plays!: i64",
    (SELECT COUNT(*) FROM play_idempotency) AS "play_idempotency!: i64",
    (SELECT COUNT(*) FROM players) AS "players!: i64",
    (SELECT COUNT(*) FROM player_accounts) AS "player_accounts!: i64",
    (SELECT COUNT(*) FROM api_keys) AS "api_keys!: i64",
    (SELECT COUNT(*) FROM sessions) AS "sessions!: i64",
    (SELECT COUNT(*) FROM next_served) AS "next_served!: i64"
