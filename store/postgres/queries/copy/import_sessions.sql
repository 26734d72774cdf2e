INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at)
SELECT id, secret_hash, key_id, created_at, expires_at
FROM jsonb_to_recordset($1::text::jsonb) AS r (id text, secret_hash text, key_id text,
    created_at bigint, expires_at bigint)
ON CONFLICT DO NOTHING
