-- The player's account, locked until the play commits: an erasure (which deletes the
-- account) waits for the play, and a play after the erasure finds no account.
SELECT id FROM player_accounts WHERE id = $1 FOR KEY SHARE
