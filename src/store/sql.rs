//! The SQL store, over sqlx's `Any` driver for PostgreSQL and SQLite alike.

use std::time::Duration;

use async_trait::async_trait;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Executor, Row};

pub use super::dialect::Backend;
use super::rollups::{Group, LevelFacts, Rollups};
use super::{
    Browse, GroupStats, IdempotentPlay, LevelKey, LevelSummary, NewLevel, NewPlay, StatsFilter,
    Store, StoreError, StoredPlay, seed_to_column,
};

#[derive(Clone)]
pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
    /// Off only to measure what keeping the rollups costs (`levelforge bench --stats`).
    rollups: bool,
}

impl SqlStore {
    /// Connects and applies the backend's migrations. A SQLite URL creates its file.
    pub async fn connect(url: &str, max_connections: u32) -> Result<SqlStore, StoreError> {
        install_default_drivers();
        let backend = Backend::of_url(url);
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(3))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if let Some(sql) = backend.per_connection_sql() {
                        conn.execute(sql).await?;
                    }
                    Ok(())
                })
            })
            .connect(&backend.connect_url(url))
            .await?;
        if let Some(sql) = backend.per_database_sql() {
            pool.execute(sql).await?;
        }
        let store = SqlStore {
            pool,
            backend,
            rollups: true,
        };
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

    /// The same store without rollup upkeep: only for measuring its cost.
    pub fn without_rollups(&self) -> SqlStore {
        SqlStore {
            rollups: false,
            ..self.clone()
        }
    }

    pub(super) fn keeps_rollups(&self) -> bool {
        self.rollups
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
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
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
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if inserted && self.rollups {
            // The rollups read the metrics' entries; a document that does not parse has none.
            let metrics: serde_json::Value =
                serde_json::from_str(s.metrics.get()).unwrap_or(serde_json::Value::Null);
            let mut rollups = Rollups::default();
            rollups.add_level(&LevelFacts {
                group: Group {
                    game: key.game.into(),
                    difficulty: key.difficulty.as_str().into(),
                    version: level.version.into(),
                },
                par: s.par.into(),
                attempts: s.attempts.into(),
                generate_ms: s.generate_ms as i64,
                solve_ms: s.solve_ms as i64,
                states: s.states as i64,
                solution_count: s.solution_count as i64,
                metrics: &metrics,
            });
            rollups
                .upsert(&mut tx, self.backend, super::rollups::random_shard())
                .await?;
        }
        tx.commit().await?;
        let stored = self.level(key).await?;
        // Only a concurrent delete could get here, and nothing deletes levels.
        stored.ok_or_else(|| StoreError::Query(sqlx::Error::RowNotFound))
    }

    async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        self.record_play(play).await
    }

    async fn idempotent_play(&self, key: &str) -> Result<Option<IdempotentPlay>, StoreError> {
        self.play_by_idempotency_key(key).await
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
