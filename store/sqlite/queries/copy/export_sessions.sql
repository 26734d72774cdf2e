-- In the order they were opened (the rowid), which the target's own order then keeps.
SELECT id AS "id!", secret_hash, key_id, created_at, expires_at FROM sessions ORDER BY rowid
