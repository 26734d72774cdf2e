-- Erasure (DELETE /players/me) by the database's own rules: every row that names a player
-- references its account, so deleting the account deletes or anonymizes them in the same
-- statement. A write naming the player, on any replica, either commits before the deletion
-- (which waits for it, and then sees it) or fails after it: a foreign key check locks the
-- account row. Rows from before player accounts (free-form client names) are left
-- unchecked (NOT VALID); new rows are checked.
ALTER TABLE players ADD CONSTRAINT players_account
    FOREIGN KEY (client) REFERENCES player_accounts (id) ON DELETE CASCADE NOT VALID;
ALTER TABLE plays ADD CONSTRAINT plays_account
    FOREIGN KEY (client) REFERENCES player_accounts (id) ON DELETE SET NULL NOT VALID;
ALTER TABLE next_served ADD CONSTRAINT next_served_account
    FOREIGN KEY (client) REFERENCES player_accounts (id) ON DELETE CASCADE NOT VALID;
-- The cascade finds a player's ratings by the player alone.
CREATE INDEX players_by_client ON players (client);

-- Idempotency keys per caller: `key` is now the digest of the caller's scope and the key
-- it sent, and `client` the player whose key it is (NULL: anonymous), erased with it.
-- The rows kept so far were keyed globally, with a fingerprint made from the player's id:
-- they go (a key only matters for the retries of one play, minutes apart).
DELETE FROM play_idempotency;
ALTER TABLE play_idempotency
    ADD COLUMN client TEXT REFERENCES player_accounts (id) ON DELETE CASCADE;
CREATE INDEX play_idempotency_by_client ON play_idempotency (client) WHERE client IS NOT NULL;
