SELECT game, client, rating, rating_deviation, rating_volatility, rated_plays
FROM players ORDER BY game, client
