//! What levelforge needs from a database, and the model its two backends share.
//!
//! [`Store`] is the service's whole view of persistence. Each backend implements it in its
//! own crate with its own SQL, checked against its schema at compile time:
//! `levelforge-store-postgres` (production) and `levelforge-store-sqlite` (the zero-setup
//! default). What does not depend on the database lives here: the domain types, the
//! rollups arithmetic, the histogram sketches, the statistics assembled from rollup rows,
//! and the ratings.

pub mod browse;
pub mod collections;
pub mod copy;
pub mod credentials;
pub mod next;
pub mod plays;
pub mod rating;
pub mod rollups;
pub mod sketch;
pub mod stats;

use std::sync::Arc;

use async_trait::async_trait;
use levelforge_games::{Difficulty, Status, Summary};

pub use browse::{Browse, BrowseSort, Cursor, LevelSummary};
pub use collections::{
    CollectionSummary, EntryProgress, EntryStats, Manifest, NewCollection, StoredEntry,
};
pub use credentials::{KeyRecord, NewKey, NewSession, PlayerRating, StoredSecret};
pub use next::{NextCandidate, NextQuery};
pub use plays::{PlayRatings, StoredPlay};
pub use rollups::Rollups;
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
    /// A recent call found the database unavailable, and this one was not let through to
    /// wait for it again (the service fails fast until a probe finds it back).
    #[error("database unavailable (failing fast until it answers again)")]
    Down,
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
    /// The player a write names was erased (its token trusted a moment longer elsewhere):
    /// nothing was stored.
    #[error("the player was erased")]
    PlayerGone,
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

/// Everything the service asks of a database. Methods are grouped as the service uses
/// them; each backend answers every one with its own SQL.
#[async_trait]
pub trait Store: Send + Sync {
    // --- Levels -------------------------------------------------------------------------

    /// The stored JSON of a level, if the key was ever served.
    async fn level(&self, key: &LevelKey) -> Result<Option<String>, StoreError>;
    /// Inserts the level unless the key is stored already, then returns what is stored:
    /// the first writer wins, so every replica serves the same bytes.
    async fn insert_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError>;
    /// One page of stored levels in (par, seed, difficulty) order, after the cursor.
    async fn browse(&self, query: &Browse) -> Result<Vec<LevelSummary>, StoreError>;

    // --- Collections (docs/http.md) -----------------------------------------------------

    /// Publishes the collection's next version (1 for a new slug, and lists it again if it
    /// was unlisted); returns its number. Every entry's level must be stored.
    async fn publish_collection(&self, collection: &NewCollection<'_>) -> Result<u32, StoreError>;
    /// Every listed collection's latest version, by slug.
    async fn collections(&self) -> Result<Vec<CollectionSummary>, StoreError>;
    /// A version's manifest; with no version, the latest one of a listed collection.
    async fn collection_manifest(
        &self,
        slug: &str,
        version: Option<u32>,
    ) -> Result<Option<Manifest>, StoreError>;
    /// A version's entries in order (none for a version never published).
    async fn collection_entries(
        &self,
        slug: &str,
        version: u32,
    ) -> Result<Vec<StoredEntry>, StoreError>;
    /// Takes a collection off the list; false when it was not listed.
    async fn unpublish_collection(&self, slug: &str) -> Result<bool, StoreError>;
    /// How each entry of a version plays, in order.
    async fn collection_stats(
        &self,
        slug: &str,
        version: u32,
    ) -> Result<Vec<EntryStats>, StoreError>;
    /// Which entries of a version the player has played (a level played anywhere counts).
    async fn collection_progress(
        &self,
        slug: &str,
        version: u32,
        player: &str,
    ) -> Result<Vec<EntryProgress>, StoreError>;

    // --- Plays --------------------------------------------------------------------------

    /// Stores a play; a player's first play of a level also moves both ratings.
    async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError>;
    /// The play stored with an idempotency key, if any.
    async fn idempotent_play(&self, key: &str) -> Result<Option<IdempotentPlay>, StoreError>;

    // --- Statistics ---------------------------------------------------------------------

    /// Statistics per (game, difficulty), read from the rollups.
    async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError>;
    /// How the rollups differ from a recomputation from the raw rows, read in one
    /// snapshot (writers may keep writing).
    async fn check_rollups(&self) -> Result<Vec<String>, StoreError>;
    /// Rebuilds the rollups from the raw rows with writers held off; returns how the old
    /// ones differed.
    async fn rebuild_rollups(&self) -> Result<Vec<String>, StoreError>;

    // --- Players (docs/security.md) -----------------------------------------------------

    async fn create_player(&self, id: &str, token_hash: &str, now: i64) -> Result<(), StoreError>;
    /// The stored token hash of a player, if the player exists.
    async fn player_token_hash(&self, id: &str) -> Result<Option<String>, StoreError>;
    async fn player_ratings(&self, id: &str) -> Result<Vec<PlayerRating>, StoreError>;
    /// Erases a player: the account (so its token), its ratings, and its name on its
    /// plays, which stay as anonymous plays so that every statistic keeps its count.
    async fn erase_player(&self, id: &str) -> Result<(), StoreError>;
    /// A player's rating in one game, if a rated play has moved it.
    async fn player_rating(
        &self,
        id: &str,
        game: &str,
    ) -> Result<Option<rating::Rating>, StoreError>;

    // --- The next level for a player (docs/difficulty.md) -------------------------------

    /// Stored levels in the query's rating window that the player has neither played
    /// nor been served, nearest the target first.
    async fn next_candidates(
        &self,
        query: &NextQuery<'_>,
    ) -> Result<Vec<NextCandidate>, StoreError>;
    /// Records that `next` chose this level for the player; false when it was already
    /// chosen for them (by another request or replica) or they played it, so it must not
    /// be served. [`StoreError::PlayerGone`] when the player was erased.
    async fn mark_served(&self, player: &str, key: &LevelKey, now: i64)
    -> Result<bool, StoreError>;
    /// A stored level's current rating (its prior until players moved it).
    async fn level_rating(&self, key: &LevelKey) -> Result<Option<rating::Rating>, StoreError>;
    /// How many levels of `game` `next` has chosen for the player.
    async fn served_count(&self, player: &str, game: &str) -> Result<i64, StoreError>;

    // --- Keys and dashboard sessions ----------------------------------------------------

    /// [`StoreError::Conflict`] when a live key has the name already.
    async fn create_key(&self, key: &NewKey<'_>) -> Result<(), StoreError>;
    /// Every key, oldest first.
    async fn keys(&self) -> Result<Vec<KeyRecord>, StoreError>;
    /// Keys neither revoked nor expired at `now`.
    async fn live_key_count(&self, now: i64) -> Result<i64, StoreError>;
    /// Revokes the live key with this name, or the key with this id; the key revoked.
    async fn revoke_key(&self, name_or_id: &str, now: i64)
    -> Result<Option<KeyRecord>, StoreError>;
    /// A key's stored hash and state.
    async fn key_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError>;
    /// Stamps a key's last use (once per credential cache period and replica).
    async fn touch_key(&self, id: &str, now: i64) -> Result<(), StoreError>;
    /// Stores a session (and drops the ones that ended by `session.created_at`).
    async fn create_session(&self, session: &NewSession<'_>) -> Result<(), StoreError>;
    /// A session's stored hash, its end, and the key it was opened with.
    async fn session_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError>;
    async fn delete_session(&self, id: &str) -> Result<(), StoreError>;

    // --- Operations ---------------------------------------------------------------------

    /// Whether the database answers.
    async fn ping(&self) -> Result<(), StoreError>;
    /// Closes the pool: waits for connections in use, refuses new work.
    async fn close(&self);
    /// The same store without rollup upkeep: only for measuring its cost
    /// (`levelforge bench --stats`).
    fn without_rollups(&self) -> Arc<dyn Store>;
    /// Fills an empty store with `levels` synthetic fruit levels over the four tiers and
    /// `plays` plays over the last 30 days, in a few set-based statements, then refreshes
    /// the planner's statistics: only for `levelforge bench --stats`.
    async fn fill_synthetic(&self, levels: u64, plays: u64) -> Result<(), StoreError>;
    /// How many levels are stored.
    async fn level_count(&self) -> Result<i64, StoreError>;
}

/// Calls macro `$then` with `$args;` and then one line per [`Store`] method that reaches
/// the database: `fn name(arg: Type, ...) -> Answer;`. The trait's shape is listed once,
/// here, for the backends' `impl_store!` (`levelforge-store-common`) and for the service's
/// decorators.
#[macro_export]
macro_rules! with_store_methods {
    ($then:ident!($($args:tt)*)) => {
        $then!($($args)*;
            fn level(key: &$crate::LevelKey) -> Option<String>;
            fn insert_level(key: &$crate::LevelKey, level: &$crate::NewLevel<'_>) -> String;
            fn browse(query: &$crate::Browse) -> Vec<$crate::LevelSummary>;
            fn publish_collection(collection: &$crate::NewCollection<'_>) -> u32;
            fn collections() -> Vec<$crate::CollectionSummary>;
            fn collection_manifest(slug: &str, version: Option<u32>) -> Option<$crate::Manifest>;
            fn collection_entries(slug: &str, version: u32) -> Vec<$crate::StoredEntry>;
            fn unpublish_collection(slug: &str) -> bool;
            fn collection_stats(slug: &str, version: u32) -> Vec<$crate::EntryStats>;
            fn collection_progress(slug: &str, version: u32, player: &str)
                -> Vec<$crate::EntryProgress>;
            fn insert_play(play: &$crate::NewPlay<'_>) -> $crate::StoredPlay;
            fn idempotent_play(key: &str) -> Option<$crate::IdempotentPlay>;
            fn stats(filter: &$crate::StatsFilter) -> Vec<$crate::GroupStats>;
            fn check_rollups() -> Vec<String>;
            fn rebuild_rollups() -> Vec<String>;
            fn create_player(id: &str, token_hash: &str, now: i64) -> ();
            fn player_token_hash(id: &str) -> Option<String>;
            fn player_ratings(id: &str) -> Vec<$crate::PlayerRating>;
            fn erase_player(id: &str) -> ();
            fn player_rating(id: &str, game: &str) -> Option<$crate::rating::Rating>;
            fn next_candidates(query: &$crate::NextQuery<'_>) -> Vec<$crate::NextCandidate>;
            fn mark_served(player: &str, key: &$crate::LevelKey, now: i64) -> bool;
            fn served_count(player: &str, game: &str) -> i64;
            fn level_rating(key: &$crate::LevelKey) -> Option<$crate::rating::Rating>;
            fn create_key(key: &$crate::NewKey<'_>) -> ();
            fn keys() -> Vec<$crate::KeyRecord>;
            fn live_key_count(now: i64) -> i64;
            fn revoke_key(name_or_id: &str, now: i64) -> Option<$crate::KeyRecord>;
            fn key_secret(id: &str) -> Option<$crate::StoredSecret>;
            fn touch_key(id: &str, now: i64) -> ();
            fn create_session(session: &$crate::NewSession<'_>) -> ();
            fn session_secret(id: &str) -> Option<$crate::StoredSecret>;
            fn delete_session(id: &str) -> ();
            fn ping() -> ();
            fn fill_synthetic(levels: u64, plays: u64) -> ();
            fn level_count() -> i64;
        );
    };
}

/// Seeds are u64; the databases have i64. Flipping the top bit maps one onto the other
/// and keeps the order, so range scans and keyset pagination work on the column.
pub fn seed_to_column(seed: u64) -> i64 {
    (seed ^ (1 << 63)) as i64
}

pub fn seed_from_column(column: i64) -> u64 {
    (column as u64) ^ (1 << 63)
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
