//! The two account writes whose statements differ in shape between the backends; the
//! other credential queries share their Rust (`store/common/mounted/credentials.rs`).

use levelforge_store::credentials::SESSIONS_PER_KEY;
use levelforge_store::{NewSession, StoreError};

use crate::PgStore;

impl PgStore {
    /// Deletes the account; its foreign keys (migration 0013) delete the ratings, the
    /// levels served and the idempotency rows, and take the name off the plays, in the
    /// same statement. A write naming the player that runs beside it, on any replica,
    /// holds the account row until it commits (its foreign key check or `lock_player`):
    /// the deletion waits for it and then sees its rows; one that comes after finds no
    /// account and stores nothing.
    pub(crate) async fn erase_player(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query!("DELETE FROM player_accounts WHERE id = $1", id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ended sessions go as new ones start: the table holds only live ones, and of those
    /// at most [`SESSIONS_PER_KEY`] per key, the newest (by `opened`).
    pub(crate) async fn create_session(&self, session: &NewSession<'_>) -> Result<(), StoreError> {
        sqlx::query!(
            "WITH ended AS (DELETE FROM sessions WHERE expires_at <= $4),
                oldest AS (DELETE FROM sessions WHERE opened IN (
                    SELECT opened FROM sessions WHERE key_id = $3
                    ORDER BY opened DESC OFFSET $6))
            INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5)",
            session.id,
            session.secret_hash,
            session.key_id,
            session.created_at,
            session.expires_at,
            SESSIONS_PER_KEY - 1,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
