INSERT INTO players (game, client, rating, rating_deviation, rating_volatility, rated_plays)
SELECT game, client, rating, rating_deviation, rating_volatility, rated_plays
FROM jsonb_to_recordset($1::text::jsonb) AS r (game text, client text,
    rating double precision, rating_deviation double precision,
    rating_volatility double precision, rated_plays integer)
ON CONFLICT DO NOTHING
