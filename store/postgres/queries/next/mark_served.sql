INSERT INTO next_served (client, game, difficulty, seed, served_at)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT DO NOTHING
