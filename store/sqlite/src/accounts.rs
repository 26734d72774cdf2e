//! The two account writes whose statements differ in shape between the backends; the
//! other credential queries share their Rust (`store/common/credentials.rs`).

use levelforge_store::{NewSession, StoreError};

use crate::SqliteStore;

impl SqliteStore {
    /// One transaction: the ratings, the name on the plays, the account.
    pub(crate) async fn erase(&self, id: &str) -> Result<(), StoreError> {
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

    /// Ended sessions go as new ones start: the table holds only live ones.
    pub(crate) async fn new_session(&self, session: &NewSession<'_>) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query!(
            "DELETE FROM sessions WHERE expires_at <= ?1",
            session.created_at
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
