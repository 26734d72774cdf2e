SELECT COUNT(*) AS "live!" FROM api_keys
WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)
