-- Collections (docs/http.md): a named, ordered list of stored levels of one game,
-- published in versions that never change. `collections` holds what moves: the latest
-- version and whether the collection is listed (DELETE unlists it; its versions stay
-- readable by their address).
CREATE TABLE collections (
    slug           TEXT    PRIMARY KEY,
    latest_version INTEGER NOT NULL,
    listed         BOOLEAN NOT NULL
);

-- A published version: its manifest is the exact bytes every replica serves, forever.
CREATE TABLE collection_versions (
    slug         TEXT    NOT NULL REFERENCES collections (slug),
    version      INTEGER NOT NULL,
    game         TEXT    NOT NULL,
    title        TEXT    NOT NULL,
    size         INTEGER NOT NULL,
    manifest     TEXT    NOT NULL,
    published_at BIGINT  NOT NULL,
    PRIMARY KEY (slug, version)
);

-- A version's levels in order (position 1 first). Hand-made levels are stored levels of
-- difficulty `custom` whose seed is the hash of their content.
CREATE TABLE collection_entries (
    slug       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    position   INTEGER NOT NULL,
    game       TEXT    NOT NULL,
    difficulty TEXT    NOT NULL,
    seed       BIGINT  NOT NULL,
    PRIMARY KEY (slug, version, position),
    FOREIGN KEY (slug, version) REFERENCES collection_versions (slug, version),
    FOREIGN KEY (game, difficulty, seed) REFERENCES levels (game, difficulty, seed)
);
