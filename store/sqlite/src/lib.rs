//! levelforge's store on SQLite, the zero-setup default: one file, no server. Every query
//! is checked at compile time against the schema of `migrations/` (offline metadata in
//! `.sqlx/`; `scripts/sqlx-prepare.sh` refreshes it).

mod credentials;
mod levels;
mod plays;
mod rollups;
mod stats;

use std::str::FromStr;
use std::time::Duration;

use levelforge_store::StoreError;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};

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
            .foreign_keys(true);
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

use levelforge_store::impl_store_methods;
levelforge_store::impl_store!(SqliteStore);

impl SqliteStore {
    async fn ping_database(&self) -> Result<(), StoreError> {
        sqlx::query!("SELECT 1 AS one")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }

    async fn count_levels(&self) -> Result<i64, StoreError> {
        let count = sqlx::query_scalar!(r#"SELECT COUNT(*) AS "count!: i64" FROM levels"#)
            .fetch_one(&self.pool)
            .await?;
        Ok(count)
    }
}
