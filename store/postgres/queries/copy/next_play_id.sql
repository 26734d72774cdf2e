-- After copied plays kept their ids: the next play gets the id after the largest.
SELECT setval(pg_get_serial_sequence('plays', 'id'), COALESCE(MAX(id), 0) + 1, false)
FROM plays
