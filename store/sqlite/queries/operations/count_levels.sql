SELECT COUNT(*) AS "count!: i64" FROM levels
