-- Oldest first (by rowid), so that the target keeps each key's order of sign-ins.
SELECT id AS "id!", secret_hash, key_id, created_at, expires_at FROM sessions ORDER BY rowid
