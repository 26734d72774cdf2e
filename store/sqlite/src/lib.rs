//! levelforge's store on SQLite, the zero-setup default: one file, no server. Every query
//! is checked at compile time against the schema of `migrations/` (offline metadata in
//! `.sqlx/`; `scripts/sqlx-prepare.sh` refreshes it).

mod credentials;
mod levels;
mod plays;
mod rollups;
mod stats;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use levelforge_store::{
    Browse, GroupStats, IdempotentPlay, KeyRecord, LevelKey, LevelSummary, NewKey, NewLevel,
    NewPlay, NewSession, PlayerRating, StatsFilter, Store, StoreError, StoredPlay, StoredSecret,
};
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

#[async_trait]
impl Store for SqliteStore {
    async fn level(&self, key: &LevelKey) -> Result<Option<String>, StoreError> {
        self.stored_level(key).await
    }

    async fn insert_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError> {
        self.store_level(key, level).await
    }

    async fn browse(&self, query: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        self.browse_page(query).await
    }

    async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        self.record_play(play).await
    }

    async fn idempotent_play(&self, key: &str) -> Result<Option<IdempotentPlay>, StoreError> {
        self.play_by_idempotency_key(key).await
    }

    async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError> {
        self.all_stats(filter).await
    }

    async fn check_rollups(&self) -> Result<Vec<String>, StoreError> {
        self.compare_rollups().await
    }

    async fn rebuild_rollups(&self) -> Result<Vec<String>, StoreError> {
        self.rebuild().await
    }

    async fn create_player(&self, id: &str, token_hash: &str, now: i64) -> Result<(), StoreError> {
        self.new_player(id, token_hash, now).await
    }

    async fn player_token_hash(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.token_hash_of_player(id).await
    }

    async fn player_ratings(&self, id: &str) -> Result<Vec<PlayerRating>, StoreError> {
        self.ratings_of_player(id).await
    }

    async fn erase_player(&self, id: &str) -> Result<(), StoreError> {
        self.erase(id).await
    }

    async fn create_key(&self, key: &NewKey<'_>) -> Result<(), StoreError> {
        self.new_key(key).await
    }

    async fn keys(&self) -> Result<Vec<KeyRecord>, StoreError> {
        self.all_keys().await
    }

    async fn live_key_count(&self, now: i64) -> Result<i64, StoreError> {
        self.live_keys(now).await
    }

    async fn revoke_key(
        &self,
        name_or_id: &str,
        now: i64,
    ) -> Result<Option<KeyRecord>, StoreError> {
        self.revoke(name_or_id, now).await
    }

    async fn key_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        self.secret_of_key(id).await
    }

    async fn touch_key(&self, id: &str, now: i64) -> Result<(), StoreError> {
        self.stamp_key_use(id, now).await
    }

    async fn create_session(&self, session: &NewSession<'_>) -> Result<(), StoreError> {
        self.new_session(session).await
    }

    async fn session_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        self.secret_of_session(id).await
    }

    async fn delete_session(&self, id: &str) -> Result<(), StoreError> {
        self.end_session(id).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query!("SELECT 1 AS one")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }

    async fn close(&self) {
        self.pool.close().await;
    }

    fn without_rollups(&self) -> Arc<dyn Store> {
        Arc::new(SqliteStore {
            rollups: false,
            ..self.clone()
        })
    }

    async fn fill_synthetic(&self, levels: u64, plays: u64) -> Result<(), StoreError> {
        self.fill(levels, plays).await
    }

    async fn level_count(&self) -> Result<i64, StoreError> {
        let count = sqlx::query_scalar!(r#"SELECT COUNT(*) AS "count!: i64" FROM levels"#)
            .fetch_one(&self.pool)
            .await?;
        Ok(count)
    }
}
