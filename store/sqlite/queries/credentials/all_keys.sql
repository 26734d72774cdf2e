SELECT id AS "id!", name, role, created_at, expires_at, last_used_at, revoked_at
FROM api_keys ORDER BY created_at, id
