-- The player's account (the play's transaction holds SQLite's one write lock already).
SELECT id FROM player_accounts WHERE id = ?1
