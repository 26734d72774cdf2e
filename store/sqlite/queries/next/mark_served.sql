-- Records that `next` chose the level for the player ?1, unless it was chosen for them
-- before (the primary key) or they have played it, and only while their account exists.
INSERT INTO next_served (client, game, difficulty, seed, served_at)
SELECT id, ?2, ?3, ?4, ?5 FROM player_accounts
WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM plays
    WHERE game = ?2 AND difficulty = ?3 AND seed = ?4 AND client = ?1)
ON CONFLICT DO NOTHING
