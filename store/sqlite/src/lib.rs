//! levelforge's store on SQLite, the zero-setup default: one file, no server. Every query
//! is checked at compile time against the schema of `migrations/` (offline metadata in
//! `.sqlx/`; `scripts/sqlx-prepare.sh` refreshes it).

mod accounts;
mod par_ratings;
mod plays;
mod rollups;
mod synthetic;
// The Rust both backends share, each around its own SQL (`queries/`).
#[path = "../../common/mod.rs"]
mod common;

use std::str::FromStr;
use std::time::Duration;

use levelforge_store::StoreError;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};

/// The store's name in the code both backends share (`store/common/`).
type Backend = SqliteStore;
/// A connection and a transaction on this backend, as the shared code names them.
type Conn = sqlx::SqliteConnection;
type Tx = sqlx::Transaction<'static, sqlx::Sqlite>;

#[derive(Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// Off only to measure what keeping the rollups costs (`levelforge bench --stats`).
    rollups: bool,
}

impl SqliteStore {
    /// Opens the file (made when missing) and applies the migrations it lacks.
    /// `acquire_timeout` bounds how long a request waits for a connection.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        acquire_timeout: Duration,
    ) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            // Readers and a writer at once; writers wait for each other instead of failing.
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true)
            // Deleted content is overwritten with zeros, not left in free space: an
            // erased player's rows leave nothing in the file (docs/security.md).
            .pragma("secure_delete", "on");
        let pool = SqlitePoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(acquire_timeout)
            .connect_with(options)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(SqliteStore {
            pool,
            rollups: true,
        })
    }
}

impl SqliteStore {
    /// A transaction that writes, holding SQLite's one write lock from its start: writers
    /// queue for it (`busy_timeout`) instead of failing to upgrade a read lock mid-way.
    async fn begin_write(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// A read transaction: in WAL mode its first read fixes the snapshot every later
    /// statement sees (copy-store).
    async fn begin_snapshot(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// Nothing to do after copy-store wrote plays with their ids: AUTOINCREMENT's counter
    /// (`sqlite_sequence`) moves past every id inserted.
    async fn after_import(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

use levelforge_store::impl_store_methods;
levelforge_store::impl_store!(SqliteStore);
