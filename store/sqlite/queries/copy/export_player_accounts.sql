SELECT id AS "id!", token_hash, created_at FROM player_accounts ORDER BY id
