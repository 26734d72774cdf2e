SELECT secret_hash, NULL::int8 AS session_expires_at, id, name, role, created_at,
    expires_at, last_used_at, revoked_at
FROM api_keys WHERE id = $1
