//! Players, keys for people and dashboard sessions (docs/security.md). A store keeps each
//! secret only as the hex SHA-256 of its whole token, under the token's public id; the
//! service compares the hashes, in constant time.

/// A key as `levelforge keys list` shows it; times are Unix seconds.
#[derive(Clone, Debug)]
pub struct KeyRecord {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// What a presented key or session is checked against.
#[derive(Clone, Debug)]
pub struct StoredSecret {
    pub secret_hash: String,
    pub key: KeyRecord,
    /// A session's own end; `None` for a key.
    pub session_expires_at: Option<i64>,
}

/// A new key, before it is stored.
pub struct NewKey<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub role: &'a str,
    pub secret_hash: &'a str,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

/// One game's rating of a player.
#[derive(Clone, Debug)]
pub struct PlayerRating {
    pub game: String,
    pub rating: f64,
    pub deviation: f64,
    pub plays: i64,
}

/// Live sessions a key keeps: a new sign-in ends the oldest beyond them, so that sign-ins
/// with one key cannot grow the table (a person signs in from a few browsers at most).
pub const SESSIONS_PER_KEY: i64 = 16;

/// A dashboard session opened with a key; times are Unix seconds.
pub struct NewSession<'a> {
    pub id: &'a str,
    pub secret_hash: &'a str,
    pub key_id: &'a str,
    pub created_at: i64,
    pub expires_at: i64,
}

/// The message of [`crate::StoreError::Conflict`] for a live key's name taken.
pub fn name_taken(name: &str) -> String {
    format!("a live key is already named `{name}`: revoke it or pick another name")
}
