INSERT INTO player_accounts (id, token_hash, created_at) VALUES (?1, ?2, ?3)
