UPDATE collections SET listed = 0 WHERE slug = ?1 AND listed
