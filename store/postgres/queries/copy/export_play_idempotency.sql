SELECT key, play_id, fingerprint, answer, client,
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "created_at!"
FROM play_idempotency ORDER BY key
