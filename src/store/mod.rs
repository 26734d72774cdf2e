//! Persistence of accepted levels and player plays.
//!
//! [`Store`] is what the service needs from a database. [`SqlStore`] implements it once
//! for PostgreSQL (production) and SQLite (the zero-setup default) through sqlx's `Any`
//! driver: the SQL is shared, and each backend has its own migrations folder.

mod browse;
mod credentials;
mod dialect;
mod plays;
mod rollups;
mod sketch;
mod sql;
mod stats;

use async_trait::async_trait;
use levelforge_games::{Difficulty, Status, Summary};

pub use browse::{Browse, Cursor, LevelSummary};
pub use credentials::{KeyRecord, NewKey, PlayerRating, StoredSecret};
pub use plays::{PlayRatings, StoredPlay};
pub use rollups::Rollups;
pub use sql::SqlStore;
pub use stats::{DayRange, DayStats, GroupStats, Percentiles, PlayStats, StatsFilter};

/// The key of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LevelKey {
    pub game: &'static str,
    pub difficulty: Difficulty,
    pub seed: u64,
}

/// A level ready to be written: its exact JSON bytes and the figures kept as columns.
pub struct NewLevel<'a> {
    pub version: u32,
    pub json: &'a str,
    pub summary: &'a Summary,
}

/// A player's result, already replayed by the server.
pub struct NewPlay<'a> {
    pub key: LevelKey,
    pub solved_claimed: bool,
    /// The server replay's verdict.
    pub status: Status,
    pub moves: &'a str,
    pub moves_used: u32,
    pub time_ms: Option<u64>,
    pub client: Option<&'a str>,
    /// With the client's `Idempotency-Key`: kept with the play, in its transaction.
    pub idempotency: Option<Idempotency<'a>>,
}

/// An idempotency key, the fingerprint of its request and the answer to give a repeat.
pub struct Idempotency<'a> {
    pub key: &'a str,
    pub fingerprint: &'a str,
    /// The answer, built from what storing the play did.
    pub answer: &'a (dyn Fn(&StoredPlay) -> String + Send + Sync),
}

/// The first request and answer of an idempotency key.
#[derive(Clone, Debug)]
pub struct IdempotentPlay {
    pub fingerprint: String,
    pub answer: String,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or is refusing work for now: worth a retry.
    #[error("database unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// The database answered with an error a retry will not fix: a bug on our side.
    #[error("database query failed: {0}")]
    Query(sqlx::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// A concurrent play with the same idempotency key committed first; nothing stored.
    #[error("the idempotency key is taken")]
    IdempotencyKeyTaken,
    /// A row with the same unique name exists (a live key's name).
    #[error("{0}")]
    Conflict(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        if is_transient(&error) {
            StoreError::Unavailable(error)
        } else {
            StoreError::Query(error)
        }
    }
}

/// Connection trouble, or a database refusing work for now (SQLSTATE classes 08
/// connection exception, 53 insufficient resources, 57 operator intervention; SQLite's
/// BUSY and LOCKED), as opposed to a query the database will reject again.
fn is_transient(error: &sqlx::Error) -> bool {
    use sqlx::Error::*;
    match error {
        Io(_) | Tls(_) | Protocol(_) | PoolTimedOut | PoolClosed | WorkerCrashed | BeginFailed => {
            true
        }
        Database(db) => db.code().is_some_and(|code| {
            ["08", "53", "57"]
                .iter()
                .any(|class| code.starts_with(class))
                || code == "5"
                || code == "6"
        }),
        _ => false,
    }
}

#[async_trait]
pub trait Store: Send + Sync {
    /// The stored JSON of a level, if the key was ever served.
    async fn level(&self, key: &LevelKey) -> Result<Option<String>, StoreError>;
    /// Inserts the level unless the key is stored already, then returns what is stored:
    /// the first writer wins, so every replica serves the same bytes.
    async fn insert_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError>;
    /// Stores a play; a client's first play of a level also moves both ratings.
    async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError>;
    /// The play stored with an idempotency key, if any.
    async fn idempotent_play(&self, key: &str) -> Result<Option<IdempotentPlay>, StoreError>;
    /// Whether the database answers.
    async fn ping(&self) -> Result<(), StoreError>;
    /// One page of stored levels in (par, seed, difficulty) order, after the cursor.
    async fn browse(&self, query: &Browse) -> Result<Vec<LevelSummary>, StoreError>;
    /// Statistics per (game, difficulty) over stored levels and plays.
    async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError>;
}

/// Seeds are u64; the databases have i64. Flipping the top bit maps one onto the other
/// and keeps the order, so range scans and keyset pagination work on the column.
pub fn seed_to_column(seed: u64) -> i64 {
    (seed ^ (1 << 63)) as i64
}

pub fn seed_from_column(column: i64) -> u64 {
    (column as u64) ^ (1 << 63)
}

/// Connects, retrying for a while: in a container the database may still be starting.
pub async fn connect_with_retry(url: &str, max_connections: u32) -> Result<SqlStore, StoreError> {
    let mut delay = std::time::Duration::from_millis(250);
    let mut tries = 0;
    loop {
        match SqlStore::connect(url, max_connections).await {
            Ok(store) => return Ok(store),
            Err(StoreError::Unavailable(error)) if tries < 20 => {
                tries += 1;
                tracing::warn!(%error, tries, "database not reachable yet; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(std::time::Duration::from_secs(5));
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_trouble_is_unavailable_and_query_bugs_are_not() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        for transient in [sqlx::Error::Io(refused), sqlx::Error::PoolTimedOut] {
            assert!(matches!(
                StoreError::from(transient),
                StoreError::Unavailable(_)
            ));
        }
        for bug in [
            sqlx::Error::RowNotFound,
            sqlx::Error::ColumnNotFound("rating".into()),
        ] {
            assert!(matches!(StoreError::from(bug), StoreError::Query(_)));
        }
    }

    #[test]
    fn seed_encoding_round_trips_and_keeps_order() {
        let seeds = [0, 1, 42, (1 << 63) - 1, 1 << 63, u64::MAX];
        for &s in &seeds {
            assert_eq!(seed_from_column(seed_to_column(s)), s);
        }
        for pair in seeds.windows(2) {
            assert!(seed_to_column(pair[0]) < seed_to_column(pair[1]));
        }
    }
}
