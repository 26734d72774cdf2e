INSERT INTO player_accounts (id, token_hash, created_at)
SELECT value ->> 'id', value ->> 'token_hash', value ->> 'created_at'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
