SELECT id AS "id!", name, role, secret_hash, created_at, expires_at, last_used_at, revoked_at
FROM api_keys ORDER BY id
