INSERT INTO api_keys (id, name, role, secret_hash, created_at, expires_at, last_used_at,
    revoked_at)
SELECT value ->> 'id', value ->> 'name', value ->> 'role', value ->> 'secret_hash',
    value ->> 'created_at', value ->> 'expires_at', value ->> 'last_used_at',
    value ->> 'revoked_at'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
