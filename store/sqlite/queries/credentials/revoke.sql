UPDATE api_keys SET revoked_at = ?1
WHERE revoked_at IS NULL AND (id = ?2 OR name = ?2)
RETURNING id AS "id!", name, role, created_at, expires_at, last_used_at, revoked_at
