SELECT l.game, l.difficulty, l.version::int8 AS "version!", l.par::int8 AS "par!",
    p.status, p.moves_used::int8 AS "moves_used!", p.time_ms,
    to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day!"
FROM plays p JOIN levels l
    ON l.game = p.game AND l.difficulty = p.difficulty AND l.seed = p.seed
