SELECT secret_hash, NULL AS "session_expires_at: i64", id AS "id!", name, role, created_at,
    expires_at, last_used_at, revoked_at
FROM api_keys WHERE id = ?1
