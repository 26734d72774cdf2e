//! Players, keys and dashboard sessions: each secret only as the hex SHA-256 of its token.
//!
//! Compiled into each backend crate around its own `queries/credentials/`; the two writes
//! whose statements differ in shape (erasing a player, starting a session) are each
//! backend's `accounts.rs`.

use levelforge_store::credentials::name_taken;
use levelforge_store::{KeyRecord, NewKey, PlayerRating, StoreError, StoredSecret};
use levelforge_store_common::Dialect;

/// A key row with its secret's hash (and a session's end, when read through a session).
struct SecretRow {
    secret_hash: String,
    session_expires_at: Option<i64>,
    id: String,
    name: String,
    role: String,
    created_at: i64,
    expires_at: Option<i64>,
    last_used_at: Option<i64>,
    revoked_at: Option<i64>,
}

impl From<SecretRow> for StoredSecret {
    fn from(row: SecretRow) -> StoredSecret {
        StoredSecret {
            secret_hash: row.secret_hash,
            session_expires_at: row.session_expires_at,
            key: KeyRecord {
                id: row.id,
                name: row.name,
                role: row.role,
                created_at: row.created_at,
                expires_at: row.expires_at,
                last_used_at: row.last_used_at,
                revoked_at: row.revoked_at,
            },
        }
    }
}

impl crate::Backend {
    pub(crate) async fn create_player(
        &self,
        id: &str,
        token_hash: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query_file!("queries/credentials/new_player.sql", id, token_hash, now,)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn player_token_hash(&self, id: &str) -> Result<Option<String>, StoreError> {
        let hash = sqlx::query_file_scalar!("queries/credentials/token_hash_of_player.sql", id)
            .fetch_optional(self.pool())
            .await?;
        Ok(hash)
    }

    pub(crate) async fn player_ratings(&self, id: &str) -> Result<Vec<PlayerRating>, StoreError> {
        let ratings = sqlx::query_file_as!(
            PlayerRating,
            "queries/credentials/ratings_of_player.sql",
            id,
        )
        .fetch_all(self.pool())
        .await?;
        Ok(ratings)
    }

    pub(crate) async fn create_key(&self, key: &NewKey<'_>) -> Result<(), StoreError> {
        sqlx::query_file!(
            "queries/credentials/new_key.sql",
            key.id,
            key.name,
            key.role,
            key.secret_hash,
            key.created_at,
            key.expires_at,
        )
        .execute(self.pool())
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::Conflict(name_taken(key.name))
            }
            _ => error.into(),
        })?;
        Ok(())
    }

    pub(crate) async fn keys(&self) -> Result<Vec<KeyRecord>, StoreError> {
        let keys = sqlx::query_file_as!(KeyRecord, "queries/credentials/all_keys.sql")
            .fetch_all(self.pool())
            .await?;
        Ok(keys)
    }

    pub(crate) async fn live_key_count(&self, now: i64) -> Result<i64, StoreError> {
        let live = sqlx::query_file_scalar!("queries/credentials/live_keys.sql", now,)
            .fetch_one(self.pool())
            .await?;
        Ok(live)
    }

    pub(crate) async fn revoke_key(
        &self,
        name_or_id: &str,
        now: i64,
    ) -> Result<Option<KeyRecord>, StoreError> {
        let key =
            sqlx::query_file_as!(KeyRecord, "queries/credentials/revoke.sql", now, name_or_id,)
                .fetch_optional(self.pool())
                .await?;
        Ok(key)
    }

    pub(crate) async fn key_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query_file_as!(SecretRow, "queries/credentials/secret_of_key.sql", id,)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(StoredSecret::from))
    }

    pub(crate) async fn touch_key(&self, id: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query_file!("queries/credentials/stamp_key_use.sql", now, id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub(crate) async fn session_secret(
        &self,
        id: &str,
    ) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query_file_as!(SecretRow, "queries/credentials/secret_of_session.sql", id,)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(StoredSecret::from))
    }

    pub(crate) async fn delete_session(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query_file!("queries/credentials/end_session.sql", id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
