-- Idempotency-Key on POST .../plays: the first answer to each key, written in the play's
-- transaction, so that a repeat gets that answer and stores nothing new.
CREATE TABLE play_idempotency (
    key         TEXT    PRIMARY KEY,
    play_id     INTEGER NOT NULL REFERENCES plays (id),
    fingerprint TEXT    NOT NULL, -- the request (level and body) the key came with
    answer      TEXT    NOT NULL, -- the 201 body as first sent
    created_at  TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP
);
