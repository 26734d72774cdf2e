INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at)
SELECT value ->> 'id', value ->> 'secret_hash', value ->> 'key_id', value ->> 'created_at',
    value ->> 'expires_at'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
