//! The rollup tables read back: what they hold, and what they should hold recomputed from
//! the raw rows (`levelforge stats check` and `rebuild`).
//!
//! Compiled into each backend crate around its own `queries/rollups/`.

use futures_util::TryStreamExt;
use levelforge_store::StoreError;
use levelforge_store::rollups::{
    DayTableRow, GroupTableRow, MetricTableRow, ParTableRow, Rollups, SketchTableRow, StoredLevel,
    StoredPlayRow, Tables,
};

/// What the tables hold, shards added up.
pub(crate) async fn load(conn: &mut super::Conn) -> Result<Rollups, StoreError> {
    macro_rules! rows {
        ($row:ident, $file:tt) => {
            sqlx::query_file_as!($row, $file)
                .fetch_all(&mut *conn)
                .await?
        };
    }
    let tables = Tables {
        groups: rows!(GroupTableRow, "queries/rollups/load_groups.sql"),
        pars: rows!(ParTableRow, "queries/rollups/load_pars.sql"),
        metrics: rows!(MetricTableRow, "queries/rollups/load_metrics.sql"),
        days: rows!(DayTableRow, "queries/rollups/load_days.sql"),
        sketches: rows!(SketchTableRow, "queries/rollups/load_sketches.sql"),
    };
    Ok(Rollups::from_tables(tables))
}

/// The rollups recomputed from every stored level and play, streamed: memory stays
/// bounded whatever the tables' size.
pub(crate) async fn recompute(conn: &mut super::Conn) -> Result<Rollups, StoreError> {
    let mut rollups = Rollups::default();
    let mut levels =
        sqlx::query_file_as!(StoredLevel, "queries/rollups/recompute_levels.sql").fetch(&mut *conn);
    while let Some(level) = levels.try_next().await? {
        rollups.add_stored_level(&level);
    }
    drop(levels);
    let mut plays = sqlx::query_file_as!(StoredPlayRow, "queries/rollups/recompute_plays.sql")
        .fetch(&mut *conn);
    while let Some(play) = plays.try_next().await? {
        rollups.add_stored_play(play);
    }
    Ok(rollups.without_empty_buckets())
}
