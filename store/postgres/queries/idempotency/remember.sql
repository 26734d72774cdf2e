INSERT INTO play_idempotency (key, play_id, fingerprint, answer, client)
VALUES ($1, $2, $3, $4, $5)
