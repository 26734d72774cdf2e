INSERT INTO play_idempotency (key, play_id, fingerprint, answer, created_at, client)
SELECT value ->> 'key', value ->> 'play_id', value ->> 'fingerprint', value ->> 'answer',
    substr(value ->> 'created_at', 1, 19), value ->> 'client'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
