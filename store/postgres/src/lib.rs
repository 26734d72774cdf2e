//! levelforge's store on PostgreSQL, the production backend. Every query is checked at
//! compile time against the schema of `migrations/` (offline metadata in `.sqlx/`;
//! `scripts/sqlx-prepare.sh` refreshes it).

mod accounts;
mod par_ratings;
mod plays;
mod rollups;
mod synthetic;
// The Rust both backends share, each around its own SQL (`queries/`).
#[path = "../../common/mod.rs"]
mod common;

use std::time::Duration;

use levelforge_store::StoreError;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

/// The store's name in the code both backends share (`store/common/`).
type Backend = PgStore;
/// A connection and a transaction on this backend, as the shared code names them.
type Conn = sqlx::PgConnection;
type Tx = sqlx::Transaction<'static, sqlx::Postgres>;

#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
    /// Off only to measure what keeping the rollups costs (`levelforge bench --stats`).
    rollups: bool,
}

impl PgStore {
    /// Connects and applies the migrations the database lacks. `acquire_timeout` bounds
    /// how long a request waits for a connection when the database is gone.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        acquire_timeout: Duration,
    ) -> Result<PgStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(acquire_timeout)
            .connect(url)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(PgStore {
            pool,
            rollups: true,
        })
    }
}

/// The host and port a URL's connections go to over TCP; `None` for a Unix socket or a
/// URL that does not parse.
pub fn tcp_address(url: &str) -> Option<(String, u16)> {
    use std::str::FromStr;
    let options = sqlx::postgres::PgConnectOptions::from_str(url).ok()?;
    let host = options.get_host();
    (!host.starts_with('/')).then(|| (host.to_string(), options.get_port()))
}

impl PgStore {
    /// A transaction that writes; PostgreSQL's row locks order the writers.
    async fn begin_write(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// A read-only transaction that sees one snapshot at every statement (copy-store).
    async fn begin_snapshot(&self) -> Result<Tx, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query!("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }

    /// After copy-store wrote plays with their ids: the next play's id follows them.
    async fn after_import(&self) -> Result<(), StoreError> {
        sqlx::query_file!("queries/copy/next_play_id.sql")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }
}

use levelforge_store::impl_store_methods;
levelforge_store::impl_store!(PgStore);
