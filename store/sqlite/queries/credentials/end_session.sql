DELETE FROM sessions WHERE id = ?1
