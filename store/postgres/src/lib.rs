//! levelforge's store on PostgreSQL, the production backend. Every query is checked at
//! compile time against the schema of `migrations/` (offline metadata in `.sqlx/`;
//! `scripts/sqlx-prepare.sh` refreshes it).

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

use std::time::Duration;

use levelforge_store::rating::RatedPlay;
use levelforge_store::{LevelKey, LevelSummary, Rollups, StoreError};
use levelforge_store_common::Dialect;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool, Postgres};

use crate::common::Tx;

/// The store the shared code (`store/common/mounted/`) adds its methods to.
type Backend = PgStore;

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

/// The hooks of the shared code, in PostgreSQL's way.
impl Dialect for PgStore {
    type Db = Postgres;

    fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn keeps_rollups(&self) -> bool {
        self.rollups
    }

    fn rollups_off(&self) -> PgStore {
        PgStore {
            rollups: false,
            ..self.clone()
        }
    }

    /// PostgreSQL's row locks order the writers.
    async fn begin_write(&self) -> Result<Tx, StoreError> {
        Ok(self.pool.begin().await?)
    }

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
        conn: &mut PgConnection,
        rollups: &Rollups,
        shard: i64,
    ) -> Result<(), StoreError> {
        rollups::upsert(conn, rollups, shard).await
    }
}

levelforge_store_common::impl_store!(PgStore);
