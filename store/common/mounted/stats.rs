//! `/stats` from the rollup tables alone: the reads cost what the number of groups, pars,
//! days and histogram buckets costs, not the number of levels or plays.
//!
//! Compiled into each backend crate: the Rust is one, the SQL is the backend's own
//! (`queries/stats/` beside its `Cargo.toml`), checked against that backend's schema.

use levelforge_store::stats::{
    BucketCount, DaySums, GroupSums, MetricSums, ParSums, StatsRows, assemble,
};
use levelforge_store::{GroupStats, StatsFilter, StoreError};
use levelforge_store_common::Dialect;

impl crate::Backend {
    pub(crate) async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError> {
        let game = filter.game;
        let tier = filter.difficulty.map(|d| d.as_str());
        let all_time_times = filter.needs_all_time_times();
        // Every read filters by the same (game, tier) as its first two parameters.
        macro_rules! rows {
            ($row:ident, $file:tt $(, $arg:expr)*) => {
                sqlx::query_file_as!($row, $file, game, tier $(, $arg)*)
                    .fetch_all(self.pool())
                    .await?
            };
        }
        let mut rows = StatsRows {
            groups: rows!(GroupSums, "queries/stats/groups.sql"),
            pars: rows!(ParSums, "queries/stats/pars.sql"),
            metrics: rows!(MetricSums, "queries/stats/metrics.sql"),
            sketches: rows!(BucketCount, "queries/stats/sketches.sql", all_time_times),
            ..StatsRows::default()
        };
        if let Some(days) = &filter.days {
            let (first, last) = (days.first.as_str(), days.last.as_str());
            rows.days = rows!(DaySums, "queries/stats/days.sql", first, last);
            rows.day_times = rows!(BucketCount, "queries/stats/day_times.sql", first, last);
        }
        Ok(assemble(filter, rows))
    }
}
