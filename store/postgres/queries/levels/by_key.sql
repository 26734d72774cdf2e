SELECT level FROM levels WHERE game = $1 AND difficulty = $2 AND seed = $3
