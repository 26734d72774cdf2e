//! The two account writes whose statements differ in shape between the backends; the
//! other credential queries share their Rust (`store/common/mounted/credentials.rs`).

use levelforge_store::credentials::SESSIONS_PER_KEY;
use levelforge_store::{NewSession, StoreError};
use levelforge_store_common::Dialect;

use crate::SqliteStore;

impl SqliteStore {
    /// One transaction: the ratings, the name on the plays, the levels served, the
    /// account (whose foreign key deletes the idempotency rows). `secure_delete` zeroes
    /// what they held in the file; then a checkpoint copies the zeroed pages into it and
    /// empties the WAL, which still held the old ones.
    pub(crate) async fn erase_player(&self, id: &str) -> Result<(), StoreError> {
        self.delete_player_rows(id).await?;
        // Not a macro: the macros cannot type a PRAGMA's columns (nor alias them).
        let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&self.pool)
            .await?;
        if busy != 0 {
            // A reader held an older snapshot: the old frames stay in the WAL until it is
            // next written over from its start.
            tracing::warn!("erasure: the WAL was not emptied (a reader was busy)");
        }
        Ok(())
    }

    async fn delete_player_rows(&self, id: &str) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query!("DELETE FROM players WHERE client = ?1", id)
            .execute(&mut *tx)
            .await?;
        sqlx::query!("UPDATE plays SET client = NULL WHERE client = ?1", id)
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM next_served WHERE client = ?1", id)
            .execute(&mut *tx)
            .await?;
        sqlx::query!("DELETE FROM player_accounts WHERE id = ?1", id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Ended sessions go as new ones start: the table holds only live ones, and of those
    /// at most [`SESSIONS_PER_KEY`] per key, the newest (by rowid, the order of insertion).
    pub(crate) async fn create_session(&self, session: &NewSession<'_>) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query!(
            "DELETE FROM sessions WHERE expires_at <= ?1",
            session.created_at
        )
        .execute(&mut *tx)
        .await?;
        let kept = SESSIONS_PER_KEY - 1;
        sqlx::query!(
            "DELETE FROM sessions WHERE rowid IN (
                SELECT rowid FROM sessions WHERE key_id = ?1 ORDER BY rowid DESC
                LIMIT -1 OFFSET ?2)",
            session.key_id,
            kept,
        )
        .execute(&mut *tx)
        .await?;
        sqlx::query!(
            "INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at)
            VALUES (?1, ?2, ?3, ?4, ?5)",
            session.id,
            session.secret_hash,
            session.key_id,
            session.created_at,
            session.expires_at,
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
