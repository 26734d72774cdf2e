INSERT INTO play_idempotency (key, play_id, client, fingerprint, answer, created_at)
SELECT key, play_id, client, fingerprint, answer, created_at::timestamp AT TIME ZONE 'UTC'
FROM jsonb_to_recordset($1::text::jsonb) AS r (key text, play_id bigint, client text,
    fingerprint text, answer text, created_at text)
ON CONFLICT DO NOTHING
