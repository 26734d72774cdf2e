INSERT INTO next_served (client, game, difficulty, seed, served_at)
SELECT value ->> 'client', value ->> 'game', value ->> 'difficulty', value ->> 'seed',
    value ->> 'served_at'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
