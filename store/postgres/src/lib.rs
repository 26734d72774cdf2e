//! levelforge's store on PostgreSQL, the production backend. Every query is checked at
//! compile time against the schema of `migrations/` (offline metadata in `.sqlx/`;
//! `scripts/sqlx-prepare.sh` refreshes it).

mod credentials;
mod levels;
mod plays;
mod rollups;
mod stats;

use std::time::Duration;

use levelforge_store::StoreError;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

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

use levelforge_store::impl_store_methods;
levelforge_store::impl_store!(PgStore);

impl PgStore {
    async fn ping_database(&self) -> Result<(), StoreError> {
        sqlx::query!("SELECT 1 AS one")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }

    async fn count_levels(&self) -> Result<i64, StoreError> {
        let count = sqlx::query_scalar!(r#"SELECT COUNT(*) AS "count!" FROM levels"#)
            .fetch_one(&self.pool)
            .await?;
        Ok(count)
    }
}
