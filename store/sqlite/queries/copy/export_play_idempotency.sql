SELECT key AS "key!", play_id, fingerprint, answer, created_at FROM play_idempotency ORDER BY key
