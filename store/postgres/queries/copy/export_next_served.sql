SELECT client, game, difficulty, seed, served_at
FROM next_served ORDER BY client, game, difficulty, seed
