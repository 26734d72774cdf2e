//! Levels: stored once per key, read by key, browsed in keyset order.
//!
//! Compiled into each backend crate around its own `queries/levels/`; the page's par
//! ratings are each backend's own ([`Dialect::with_par_ratings`]).

use levelforge_store::browse::SummaryRow;
use levelforge_store::rollups::{Rollups, random_shard};
use levelforge_store::{
    Browse, BrowseSort, LevelKey, LevelSummary, NewLevel, StoreError, seed_to_column,
};
use levelforge_store_common::Dialect;

impl crate::Backend {
    pub(crate) async fn level(&self, key: &LevelKey) -> Result<Option<String>, StoreError> {
        let level = sqlx::query_file_scalar!(
            "queries/levels/by_key.sql",
            key.game,
            key.difficulty.as_str(),
            seed_to_column(key.seed),
        )
        .fetch_optional(self.pool())
        .await?;
        Ok(level)
    }

    /// Stores the level unless its key is taken, then answers what the key holds: the
    /// first writer's bytes win, so every replica serves the same level forever.
    pub(crate) async fn insert_level(
        &self,
        key: &LevelKey,
        level: &NewLevel<'_>,
    ) -> Result<String, StoreError> {
        let s = level.summary;
        let mut tx = self.begin_write().await?;
        let inserted = sqlx::query_file!(
            "queries/levels/insert.sql",
            key.game,
            key.difficulty.as_str(),
            seed_to_column(key.seed),
            level.version as i32,
            s.par as i32,
            s.attempts as i32,
            s.generate_ms as i64,
            s.solve_ms as i64,
            s.states as i64,
            s.solution_count as i64,
            s.metrics.get(),
            level.json,
            s.prior_rating,
        )
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if inserted && self.keeps_rollups() {
            crate::Backend::upsert_rollups(
                &mut tx,
                &Rollups::of_new_level(key, level),
                random_shard(),
            )
            .await?;
        }
        tx.commit().await?;
        let stored = self.level(key).await?;
        // Only a concurrent delete could get here, and nothing deletes levels.
        stored.ok_or(StoreError::Query(sqlx::Error::RowNotFound))
    }

    /// One page in (par, seed, difficulty) order; each filter is a parameter that may be
    /// NULL.
    pub(crate) async fn browse(&self, b: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        if b.sort == BrowseSort::PriorGap {
            return self.farthest_from_prior(b).await;
        }
        let after = b.after;
        let rows = sqlx::query_file_as!(
            SummaryRow,
            "queries/levels/browse_page.sql",
            b.game,
            b.difficulty.map(|d| d.as_str()),
            b.par_min.map(|p| p as i32),
            b.par_max.map(|p| p as i32),
            b.rated_only(),
            b.rating_min,
            b.rating_max,
            after.map(|a| a.par as i32),
            b.above_par_min,
            after.map(|a| seed_to_column(a.seed)),
            after.map(|a| a.difficulty.as_str()),
            i64::from(b.limit),
            b.prior_gap_min,
        )
        .fetch_all(self.pool())
        .await?;
        let mut page: Vec<LevelSummary> = rows.into_iter().map(LevelSummary::from).collect();
        self.with_par_ratings(b.game, &mut page).await?;
        Ok(page)
    }

    async fn farthest_from_prior(&self, b: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        let rows = sqlx::query_file_as!(
            SummaryRow,
            "queries/levels/farthest_from_prior.sql",
            b.game,
            b.difficulty.map(|d| d.as_str()),
            b.prior_gap_min,
            i64::from(b.limit),
        )
        .fetch_all(self.pool())
        .await?;
        let mut page: Vec<LevelSummary> = rows.into_iter().map(LevelSummary::from).collect();
        self.with_par_ratings(b.game, &mut page).await?;
        Ok(page)
    }
}
