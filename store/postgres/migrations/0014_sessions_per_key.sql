-- A key keeps its newest sessions only (levelforge_store::credentials::SESSIONS_PER_KEY):
-- `opened` orders them, whatever second they were opened in.
ALTER TABLE sessions ADD COLUMN opened BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE INDEX sessions_by_key ON sessions (key_id, opened);
