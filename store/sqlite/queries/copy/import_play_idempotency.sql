INSERT INTO play_idempotency (key, play_id, client, fingerprint, answer, created_at)
SELECT value ->> 'key', value ->> 'play_id', value ->> 'client', value ->> 'fingerprint',
    value ->> 'answer', substr(value ->> 'created_at', 1, 19)
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
