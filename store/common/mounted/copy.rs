//! `levelforge copy-store`'s side of a backend: every copied table read in one snapshot
//! and streamed out in batches, batches written insert-if-absent (levelforge_store::copy).
//!
//! Compiled into each backend crate around its own `queries/copy/`; the backend's
//! [`Dialect`] gives `begin_snapshot` and `after_import`.

use std::ops::ControlFlow;

use futures_util::{Stream, TryStreamExt};
use levelforge_store::StoreError;
use levelforge_store::copy::{
    AccountRow, Batch, BatchSink, CollectionEntryRow, CollectionRow, CollectionVersionRow,
    CopyStore, IdempotencyRow, KeyRow, LevelRow, PlayRow, PlayerRow, Row, ServedRow, SessionRow,
    Table, TableCounts,
};
use levelforge_store_common::Dialect;

#[async_trait::async_trait]
impl CopyStore for crate::Backend {
    async fn export(
        &self,
        tables: &[Table],
        batch_rows: usize,
        sink: &mut dyn BatchSink,
    ) -> Result<ControlFlow<()>, StoreError> {
        let mut snapshot = self.begin_snapshot().await?;
        for &table in tables {
            if export_table(&mut snapshot, table, batch_rows.max(1), sink)
                .await?
                .is_break()
            {
                return Ok(ControlFlow::Break(()));
            }
        }
        snapshot.rollback().await?;
        Ok(ControlFlow::Continue(()))
    }

    async fn import(&self, batch: &Batch) -> Result<u64, StoreError> {
        let mut tx = self.begin_write().await?;
        let rows = &batch.json;
        macro_rules! import {
            ($file:tt) => {
                sqlx::query_file!($file, rows).execute(&mut *tx).await?
            };
        }
        let written = match batch.table {
            Table::Levels => import!("queries/copy/import_levels.sql"),
            Table::Plays => import!("queries/copy/import_plays.sql"),
            Table::PlayIdempotency => import!("queries/copy/import_play_idempotency.sql"),
            Table::Players => import!("queries/copy/import_players.sql"),
            Table::PlayerAccounts => import!("queries/copy/import_player_accounts.sql"),
            Table::ApiKeys => import!("queries/copy/import_api_keys.sql"),
            Table::Sessions => import!("queries/copy/import_sessions.sql"),
            Table::NextServed => import!("queries/copy/import_next_served.sql"),
            Table::Collections => import!("queries/copy/import_collections.sql"),
            Table::CollectionVersions => import!("queries/copy/import_collection_versions.sql"),
            Table::CollectionEntries => import!("queries/copy/import_collection_entries.sql"),
        }
        .rows_affected();
        tx.commit().await?;
        Ok(written)
    }

    async fn table_counts(&self) -> Result<TableCounts, StoreError> {
        let counts = sqlx::query_file_as!(TableCounts, "queries/copy/table_counts.sql")
            .fetch_one(self.pool())
            .await?;
        Ok(counts)
    }

    async fn finish_import(&self) -> Result<(), StoreError> {
        self.after_import().await
    }
}

/// Streams one table's rows to `sink` in batches.
async fn export_table(
    conn: &mut super::Conn,
    table: Table,
    batch_rows: usize,
    sink: &mut dyn BatchSink,
) -> Result<ControlFlow<()>, StoreError> {
    macro_rules! export {
        ($row:ident, $file:tt) => {
            forward(
                sqlx::query_file_as!($row, $file).fetch(&mut *conn),
                table,
                batch_rows,
                sink,
            )
            .await
        };
    }
    match table {
        Table::Levels => export!(LevelRow, "queries/copy/export_levels.sql"),
        Table::Plays => export!(PlayRow, "queries/copy/export_plays.sql"),
        Table::PlayIdempotency => {
            export!(IdempotencyRow, "queries/copy/export_play_idempotency.sql")
        }
        Table::Players => export!(PlayerRow, "queries/copy/export_players.sql"),
        Table::PlayerAccounts => export!(AccountRow, "queries/copy/export_player_accounts.sql"),
        Table::ApiKeys => export!(KeyRow, "queries/copy/export_api_keys.sql"),
        Table::Sessions => export!(SessionRow, "queries/copy/export_sessions.sql"),
        Table::NextServed => export!(ServedRow, "queries/copy/export_next_served.sql"),
        Table::Collections => export!(CollectionRow, "queries/copy/export_collections.sql"),
        Table::CollectionVersions => {
            export!(
                CollectionVersionRow,
                "queries/copy/export_collection_versions.sql"
            )
        }
        Table::CollectionEntries => {
            export!(
                CollectionEntryRow,
                "queries/copy/export_collection_entries.sql"
            )
        }
    }
}

/// Cuts a stream of rows into batches for `sink`; memory holds one batch at a time.
async fn forward<R: Row>(
    mut rows: impl Stream<Item = Result<R, sqlx::Error>> + Unpin,
    table: Table,
    batch_rows: usize,
    sink: &mut dyn BatchSink,
) -> Result<ControlFlow<()>, StoreError> {
    let mut batch = Vec::with_capacity(batch_rows);
    while let Some(row) = rows.try_next().await? {
        batch.push(row);
        if batch.len() == batch_rows {
            if sink.accept(Batch::of(table, &batch)).await?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
            batch.clear();
        }
    }
    if batch.is_empty() {
        return Ok(ControlFlow::Continue(()));
    }
    sink.accept(Batch::of(table, &batch)).await
}
