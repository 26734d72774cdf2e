INSERT INTO players (game, client)
SELECT $1, $2
WHERE EXISTS (SELECT 1 FROM player_accounts WHERE id = $2)
    AND NOT EXISTS (SELECT 1 FROM plays
        WHERE game = $1 AND difficulty = $3 AND seed = $4 AND client = $2 AND moves_used > 0)
ON CONFLICT (game, client) DO UPDATE SET rated_plays = players.rated_plays
RETURNING rating, rating_deviation, rating_volatility, rated_plays::int8 AS "rated_plays!"
