//! The operators' probes: is the database there, how many levels does it hold.
//!
//! Compiled into each backend crate around its own `queries/operations/`.

use levelforge_store::StoreError;
use levelforge_store_common::Dialect;

impl crate::Backend {
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query_file!("queries/operations/ping.sql")
            .fetch_one(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn level_count(&self) -> Result<i64, StoreError> {
        let count = sqlx::query_file_scalar!("queries/operations/count_levels.sql")
            .fetch_one(self.pool())
            .await?;
        Ok(count)
    }
}
