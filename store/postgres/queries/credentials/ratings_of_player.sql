SELECT game, rating, rating_deviation AS deviation,
    rated_plays::int8 AS "plays!"
FROM players WHERE client = $1 ORDER BY game
