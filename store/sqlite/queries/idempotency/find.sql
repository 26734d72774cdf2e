SELECT fingerprint, answer FROM play_idempotency WHERE key = ?1
