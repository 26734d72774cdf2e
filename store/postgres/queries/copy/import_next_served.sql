INSERT INTO next_served (client, game, difficulty, seed, served_at)
SELECT client, game, difficulty, seed, served_at
FROM jsonb_to_recordset($1::text::jsonb) AS r (client text, game text, difficulty text,
    seed bigint, served_at bigint)
ON CONFLICT DO NOTHING
