INSERT INTO api_keys (id, name, role, secret_hash, created_at, expires_at, last_used_at,
    revoked_at)
SELECT id, name, role, secret_hash, created_at, expires_at, last_used_at, revoked_at
FROM jsonb_to_recordset($1::text::jsonb) AS r (id text, name text, role text,
    secret_hash text, created_at bigint, expires_at bigint, last_used_at bigint,
    revoked_at bigint)
ON CONFLICT DO NOTHING
