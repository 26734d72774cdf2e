SELECT key AS "key!", play_id, fingerprint, answer, created_at, client
FROM play_idempotency ORDER BY key
