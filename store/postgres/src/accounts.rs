//! The two account writes whose statements differ in shape between the backends; the
//! other credential queries share their Rust (`store/common/credentials.rs`).

use levelforge_store::{NewSession, StoreError};

use crate::PgStore;

impl PgStore {
    /// One statement, so one transaction: the ratings, the name on the plays, the account.
    pub(crate) async fn erase(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query!(
            "WITH ratings AS (DELETE FROM players WHERE client = $1),
                plays AS (UPDATE plays SET client = NULL WHERE client = $1),
                served AS (DELETE FROM next_served WHERE client = $1)
            DELETE FROM player_accounts WHERE id = $1",
            id,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ended sessions go as new ones start: the table holds only live ones.
    pub(crate) async fn new_session(&self, session: &NewSession<'_>) -> Result<(), StoreError> {
        sqlx::query!(
            "WITH ended AS (DELETE FROM sessions WHERE expires_at <= $4)
            INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5)",
            session.id,
            session.secret_hash,
            session.key_id,
            session.created_at,
            session.expires_at,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
