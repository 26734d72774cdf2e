SELECT token_hash FROM player_accounts WHERE id = $1
