SELECT rating, rating_deviation AS deviation, rating_volatility AS volatility FROM levels
WHERE game = ?1 AND difficulty = ?2 AND seed = ?3
