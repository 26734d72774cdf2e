SELECT game, rating, rating_deviation AS deviation,
    rated_plays AS plays
FROM players WHERE client = ?1 ORDER BY game
