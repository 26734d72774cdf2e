-- In the order they were opened, which the target's own `opened` then keeps.
SELECT id, secret_hash, key_id, created_at, expires_at FROM sessions ORDER BY opened
