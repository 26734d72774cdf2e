//! The SQL store, over sqlx's `Any` driver for PostgreSQL and SQLite alike.

use std::time::Duration;

use async_trait::async_trait;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Executor, Row};

use super::{
    Browse, GroupStats, LevelKey, LevelSummary, NewLevel, NewPlay, StatsFilter, Store, StoreError,
    StoredPlay, seed_to_column,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

#[derive(Clone)]
pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
}

impl SqlStore {
    /// Connects and applies the backend's migrations. A SQLite URL creates its file.
    pub async fn connect(url: &str, max_connections: u32) -> Result<SqlStore, StoreError> {
        install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        };
        let url = match backend {
            Backend::Sqlite if !url.contains("mode=") => {
                format!("{url}{}mode=rwc", if url.contains('?') { '&' } else { '?' })
            }
            _ => url.to_string(),
        };
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(3))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // Concurrent writers wait for each other instead of failing.
                        conn.execute("PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;")
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        if backend == Backend::Sqlite {
            pool.execute("PRAGMA journal_mode = WAL").await?;
        }
        let store = SqlStore { pool, backend };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Postgres => {
                sqlx::migrate!("./migrations/postgres")
                    .run(&self.pool)
                    .await?
            }
            Backend::Sqlite => {
                sqlx::migrate!("./migrations/sqlite")
                    .run(&self.pool)
                    .await?
            }
        }
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }
}

#[async_trait]
impl Store for SqlStore {
    async fn level(&self, key: &LevelKey) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT level FROM levels WHERE game = $1 AND difficulty = $2 AND seed = $3",
        )
        .bind(key.game)
        .bind(key.difficulty.as_str())
        .bind(seed_to_column(key.seed))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.get::<String, _>(0)))
    }

    async fn insert_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError> {
        let s = level.summary;
        sqlx::query(
            "INSERT INTO levels (game, difficulty, seed, version, par, attempts, generate_ms, solve_ms, \
             states, solution_count, metrics, level) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (game, difficulty, seed) DO NOTHING",
        )
        .bind(key.game)
        .bind(key.difficulty.as_str())
        .bind(seed_to_column(key.seed))
        .bind(level.version as i32)
        .bind(s.par as i32)
        .bind(s.attempts as i32)
        .bind(s.generate_ms as i64)
        .bind(s.solve_ms as i64)
        .bind(s.states as i64)
        .bind(s.solution_count as i64)
        .bind(s.metrics.get())
        .bind(level.json)
        .execute(&self.pool)
        .await?;
        let stored = self.level(key).await?;
        // Only a concurrent delete could get here, and nothing deletes levels.
        stored.ok_or_else(|| StoreError::Query(sqlx::Error::RowNotFound))
    }

    async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        self.record_play(play).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn browse(&self, query: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        self.browse_page(query).await
    }

    async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError> {
        self.all_stats(filter).await
    }
}
