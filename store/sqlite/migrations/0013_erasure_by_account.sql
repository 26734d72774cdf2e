-- Idempotency keys per caller: `key` is now the digest of the caller's scope and the key
-- it sent, and `client` the player whose key it is (NULL: anonymous), deleted with the
-- account. The rows kept so far were keyed globally, with a fingerprint made from the
-- player's id: they go (a key only matters for the retries of one play, minutes apart).
-- (SQLite runs one writer at a time, so an erasure and a play never interleave: the other
-- rows naming a player are deleted by the erasure's own statements.)
DELETE FROM play_idempotency;
ALTER TABLE play_idempotency
    ADD COLUMN client TEXT REFERENCES player_accounts (id) ON DELETE CASCADE;
CREATE INDEX play_idempotency_by_client ON play_idempotency (client) WHERE client IS NOT NULL;
-- The erasure finds a player's ratings by the player alone.
CREATE INDEX players_by_client ON players (client);
