SELECT key AS "key!", play_id, client, fingerprint, answer, created_at
FROM play_idempotency ORDER BY key
