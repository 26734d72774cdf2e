-- Oldest first, so that the target's `opened` keeps each key's order of sign-ins.
SELECT id, secret_hash, key_id, created_at, expires_at FROM sessions ORDER BY opened
