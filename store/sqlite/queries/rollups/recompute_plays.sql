SELECT l.game, l.difficulty, l.version, l.par, p.status, p.moves_used, p.time_ms,
    substr(p.created_at, 1, 10) AS "day!: String"
FROM plays p JOIN levels l
    ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed
