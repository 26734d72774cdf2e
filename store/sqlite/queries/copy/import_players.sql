INSERT INTO players (game, client, rating, rating_deviation, rating_volatility, rated_plays)
SELECT value ->> 'game', value ->> 'client', value ->> 'rating',
    value ->> 'rating_deviation', value ->> 'rating_volatility', value ->> 'rated_plays'
FROM json_each(?1) WHERE true
ON CONFLICT DO NOTHING
