SELECT COUNT(*) AS "count!" FROM levels
