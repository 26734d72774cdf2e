-- Credentials (docs/security.md). Every secret is kept only as the hex SHA-256 of the whole
-- token; the id inside the token finds the row, the hash is compared in constant time.
-- Times are Unix seconds (UTC).

-- Players made by POST /players; their ratings stay in `players`, keyed by this id.
CREATE TABLE player_accounts (
    id         TEXT   PRIMARY KEY,
    token_hash TEXT   NOT NULL,
    created_at BIGINT NOT NULL
);

-- Keys for people, made by `levelforge keys create`.
CREATE TABLE api_keys (
    id           TEXT   PRIMARY KEY,
    name         TEXT   NOT NULL,
    role         TEXT   NOT NULL CHECK (role IN ('designer', 'admin')),
    secret_hash  TEXT   NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
-- A name names one live key, so `keys revoke NAME` is unambiguous.
CREATE UNIQUE INDEX api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL;

-- Dashboard sign-ins (POST /session), each opened with a key and ending with it.
CREATE TABLE sessions (
    id          TEXT   PRIMARY KEY,
    secret_hash TEXT   NOT NULL,
    key_id      TEXT   NOT NULL REFERENCES api_keys (id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

-- Erasing a player (DELETE /players/me) finds their plays.
CREATE INDEX plays_by_client ON plays (client) WHERE client IS NOT NULL;
