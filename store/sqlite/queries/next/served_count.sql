SELECT COUNT(*) AS "served!: i64" FROM next_served WHERE client = ?1 AND game = ?2
