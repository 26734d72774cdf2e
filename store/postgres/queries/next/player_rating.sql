SELECT rating, rating_deviation, rating_volatility FROM players WHERE game = $1 AND client = $2
