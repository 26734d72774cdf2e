INSERT INTO api_keys (id, name, role, secret_hash, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)
