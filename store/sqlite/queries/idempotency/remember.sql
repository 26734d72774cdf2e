INSERT INTO play_idempotency (key, play_id, fingerprint, answer)
VALUES (?1, ?2, ?3, ?4)
