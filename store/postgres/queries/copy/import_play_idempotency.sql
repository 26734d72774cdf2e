INSERT INTO play_idempotency (key, play_id, fingerprint, answer, created_at, client)
SELECT key, play_id, fingerprint, answer, created_at::timestamp AT TIME ZONE 'UTC', client
FROM jsonb_to_recordset($1::text::jsonb) AS r (key text, play_id bigint, fingerprint text,
    answer text, created_at text, client text)
ON CONFLICT DO NOTHING
