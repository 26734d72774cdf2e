SELECT id AS "id!", secret_hash, key_id, created_at, expires_at FROM sessions ORDER BY id
