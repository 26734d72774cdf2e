//! Collections: versions published in one transaction, manifests read as stored, and
//! each entry's plays read from the plays of its level.
//!
//! Compiled into each backend crate around its own `queries/collections/`.

use levelforge_store::collections::ENTRIES_MAX;
use levelforge_store::{
    CollectionSummary, EntryProgress, EntryStats, Manifest, NewCollection, StoreError, StoredEntry,
    seed_from_column, seed_to_column,
};
use levelforge_store_common::Dialect;

/// Collections `GET /collections` lists at most.
const LISTED_MAX: i64 = 1000;

struct EntryRow {
    position: i64,
    game: String,
    difficulty: String,
    seed: i64,
}

impl From<EntryRow> for StoredEntry {
    fn from(row: EntryRow) -> StoredEntry {
        StoredEntry {
            position: u32::try_from(row.position).unwrap_or(u32::MAX),
            game: row.game,
            difficulty: row.difficulty,
            seed: seed_from_column(row.seed),
        }
    }
}

/// A stored count or number as the domain's u32 (they are written from u32s).
fn small(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

impl crate::Backend {
    pub(crate) async fn publish_collection(
        &self,
        c: &NewCollection<'_>,
    ) -> Result<u32, StoreError> {
        debug_assert!(c.entries.len() <= ENTRIES_MAX);
        let mut tx = self.begin_write().await?;
        let version = sqlx::query_file_scalar!("queries/collections/claim_version.sql", c.slug)
            .fetch_one(&mut *tx)
            .await?;
        let version = small(version);
        let manifest = (c.manifest)(version);
        sqlx::query_file!(
            "queries/collections/insert_version.sql",
            c.slug,
            version as i32,
            c.game,
            c.title,
            c.entries.len() as i32,
            manifest,
            c.now,
        )
        .execute(&mut *tx)
        .await?;
        for (i, key) in c.entries.iter().enumerate() {
            sqlx::query_file!(
                "queries/collections/insert_entry.sql",
                c.slug,
                version as i32,
                (i + 1) as i32,
                key.game,
                key.difficulty.as_str(),
                seed_to_column(key.seed),
            )
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(version)
    }

    pub(crate) async fn collections(&self) -> Result<Vec<CollectionSummary>, StoreError> {
        let rows = sqlx::query_file!("queries/collections/listed.sql", LISTED_MAX)
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .into_iter()
            .map(|r| CollectionSummary {
                slug: r.slug,
                title: r.title,
                game: r.game,
                version: small(r.version),
                size: small(r.size),
                published_at: r.published_at,
            })
            .collect())
    }

    pub(crate) async fn collection_manifest(
        &self,
        slug: &str,
        version: Option<u32>,
    ) -> Result<Option<Manifest>, StoreError> {
        let found = match version {
            None => sqlx::query_file!("queries/collections/latest_manifest.sql", slug)
                .fetch_optional(self.pool())
                .await?
                .map(|r| (r.version, r.manifest)),
            Some(version) => {
                sqlx::query_file!("queries/collections/manifest.sql", slug, version as i32)
                    .fetch_optional(self.pool())
                    .await?
                    .map(|r| (r.version, r.manifest))
            }
        };
        Ok(found.map(|(version, json)| Manifest {
            version: small(version),
            json,
        }))
    }

    pub(crate) async fn collection_entries(
        &self,
        slug: &str,
        version: u32,
    ) -> Result<Vec<StoredEntry>, StoreError> {
        let rows = sqlx::query_file_as!(
            EntryRow,
            "queries/collections/entries.sql",
            slug,
            version as i32
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(StoredEntry::from).collect())
    }

    pub(crate) async fn unpublish_collection(&self, slug: &str) -> Result<bool, StoreError> {
        let done = sqlx::query_file!("queries/collections/unlist.sql", slug)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(crate) async fn collection_stats(
        &self,
        slug: &str,
        version: u32,
    ) -> Result<Vec<EntryStats>, StoreError> {
        let rows = sqlx::query_file!("queries/collections/entry_stats.sql", slug, version as i32)
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .into_iter()
            .map(|r| EntryStats {
                entry: StoredEntry::from(EntryRow {
                    position: r.position,
                    game: r.game,
                    difficulty: r.difficulty,
                    seed: r.seed,
                }),
                par: small(r.par),
                plays: r.plays,
                won: r.won,
                won_moves_over_par: r.won_moves_over_par,
                rating: r.rating,
                rated_plays: r.rated_plays,
                prior_rating: r.prior_rating,
            })
            .collect())
    }

    pub(crate) async fn collection_progress(
        &self,
        slug: &str,
        version: u32,
        player: &str,
    ) -> Result<Vec<EntryProgress>, StoreError> {
        let rows = sqlx::query_file!(
            "queries/collections/progress.sql",
            slug,
            version as i32,
            player
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| EntryProgress {
                entry: StoredEntry::from(EntryRow {
                    position: r.position,
                    game: r.game,
                    difficulty: r.difficulty,
                    seed: r.seed,
                }),
                played: r.played,
                won: r.won,
            })
            .collect())
    }
}
