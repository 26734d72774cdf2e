INSERT INTO player_accounts (id, token_hash, created_at)
SELECT id, token_hash, created_at
FROM jsonb_to_recordset($1::text::jsonb) AS r (id text, token_hash text, created_at bigint)
ON CONFLICT DO NOTHING
