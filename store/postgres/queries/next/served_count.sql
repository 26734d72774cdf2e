SELECT COUNT(*) AS "served!" FROM next_served WHERE client = $1 AND game = $2
