-- A key keeps its newest sessions only (levelforge_store::credentials::SESSIONS_PER_KEY):
-- the rowid orders them, whatever second they were opened in.
CREATE INDEX sessions_by_key ON sessions (key_id);
