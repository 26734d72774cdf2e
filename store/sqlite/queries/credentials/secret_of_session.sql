SELECT s.secret_hash, s.expires_at AS "session_expires_at?", k.id AS "id!", k.name, k.role,
    k.created_at, k.expires_at, k.last_used_at, k.revoked_at
FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.id = ?1
