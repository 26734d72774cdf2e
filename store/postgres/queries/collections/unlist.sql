UPDATE collections SET listed = FALSE WHERE slug = $1 AND listed
