//! levelforge's store on SQLite, the zero-setup default: one file, no server. Every query
//! is checked at compile time against the schema of `migrations/` (offline metadata in
//! `.sqlx/`; `scripts/sqlx-prepare.sh` refreshes it).

mod accounts;
mod par_ratings;
mod plays;
mod rollups;
mod synthetic;
// The Rust both backends share (crate `levelforge-store-common`), compiled here rather than
// in its own crate: each of its `query_file!` paths must be read from this crate's
// `queries/` and checked against this crate's schema and offline metadata (`.sqlx/`).
#[path = "../../common/mounted/mod.rs"]
mod common;

use std::str::FromStr;
use std::time::Duration;

use levelforge_store::rating::RatedPlay;
use levelforge_store::{LevelKey, LevelSummary, Rollups, StoreError};
use levelforge_store_common::Dialect;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::{Sqlite, SqliteConnection, SqlitePool};

use crate::common::Tx;

/// The store the shared code (`store/common/mounted/`) adds its methods to.
type Backend = SqliteStore;

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

/// The hooks of the shared code, in SQLite's way.
impl Dialect for SqliteStore {
    type Db = Sqlite;

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    fn keeps_rollups(&self) -> bool {
        self.rollups
    }

    fn rollups_off(&self) -> SqliteStore {
        SqliteStore {
            rollups: false,
            ..self.clone()
        }
    }

    /// Holds SQLite's one write lock from its start: writers queue for it (`busy_timeout`)
    /// instead of failing to upgrade a read lock mid-way.
    async fn begin_write(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// In WAL mode a read transaction's first read fixes the snapshot every later
    /// statement sees.
    async fn begin_snapshot(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// Nothing to do after copy-store wrote plays with their ids: AUTOINCREMENT's counter
    /// (`sqlite_sequence`) moves past every id inserted.
    async fn after_import(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn with_par_ratings(
        &self,
        game: &str,
        page: &mut [LevelSummary],
    ) -> Result<(), StoreError> {
        par_ratings::with_par_ratings(&self.pool, game, page).await
    }

    async fn save_ratings(
        tx: &mut Tx,
        key: &LevelKey,
        player: &str,
        after: &RatedPlay,
    ) -> Result<(), StoreError> {
        plays::save_ratings(tx, key, player, after).await
    }

    async fn upsert_rollups(
        conn: &mut SqliteConnection,
        rollups: &Rollups,
        shard: i64,
    ) -> Result<(), StoreError> {
        rollups::upsert(conn, rollups, shard).await
    }
}

levelforge_store_common::impl_store!(SqliteStore);
