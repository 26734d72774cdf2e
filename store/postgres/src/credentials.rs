//! Players, keys and dashboard sessions: each secret only as the hex SHA-256 of its token.

use levelforge_store::credentials::name_taken;
use levelforge_store::{KeyRecord, NewKey, NewSession, PlayerRating, StoreError, StoredSecret};

use crate::PgStore;

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

impl PgStore {
    pub(crate) async fn new_player(
        &self,
        id: &str,
        token_hash: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query!(
            "INSERT INTO player_accounts (id, token_hash, created_at) VALUES ($1, $2, $3)",
            id,
            token_hash,
            now,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub(crate) async fn token_hash_of_player(
        &self,
        id: &str,
    ) -> Result<Option<String>, StoreError> {
        let hash = sqlx::query_scalar!("SELECT token_hash FROM player_accounts WHERE id = $1", id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(hash)
    }

    pub(crate) async fn ratings_of_player(
        &self,
        id: &str,
    ) -> Result<Vec<PlayerRating>, StoreError> {
        let ratings = sqlx::query_as!(
            PlayerRating,
            r#"SELECT game, rating, rating_deviation AS deviation,
                rated_plays::int8 AS "plays!"
            FROM players WHERE client = $1 ORDER BY game"#,
            id,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(ratings)
    }

    /// One statement, so one transaction: the ratings, the name on the plays, the account.
    pub(crate) async fn erase(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query!(
            "WITH ratings AS (DELETE FROM players WHERE client = $1),
                plays AS (UPDATE plays SET client = NULL WHERE client = $1)
            DELETE FROM player_accounts WHERE id = $1",
            id,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub(crate) async fn new_key(&self, key: &NewKey<'_>) -> Result<(), StoreError> {
        sqlx::query!(
            "INSERT INTO api_keys (id, name, role, secret_hash, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6)",
            key.id,
            key.name,
            key.role,
            key.secret_hash,
            key.created_at,
            key.expires_at,
        )
        .execute(&self.pool)
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::Conflict(name_taken(key.name))
            }
            _ => error.into(),
        })?;
        Ok(())
    }

    pub(crate) async fn all_keys(&self) -> Result<Vec<KeyRecord>, StoreError> {
        let keys = sqlx::query_as!(
            KeyRecord,
            "SELECT id, name, role, created_at, expires_at, last_used_at, revoked_at
            FROM api_keys ORDER BY created_at, id"
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(keys)
    }

    pub(crate) async fn live_keys(&self, now: i64) -> Result<i64, StoreError> {
        let live = sqlx::query_scalar!(
            r#"SELECT COUNT(*) AS "live!" FROM api_keys
            WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)"#,
            now,
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(live)
    }

    pub(crate) async fn revoke(
        &self,
        name_or_id: &str,
        now: i64,
    ) -> Result<Option<KeyRecord>, StoreError> {
        let key = sqlx::query_as!(
            KeyRecord,
            "UPDATE api_keys SET revoked_at = $1
            WHERE revoked_at IS NULL AND (id = $2 OR name = $2)
            RETURNING id, name, role, created_at, expires_at, last_used_at, revoked_at",
            now,
            name_or_id,
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(key)
    }

    pub(crate) async fn secret_of_key(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query_as!(
            SecretRow,
            r#"SELECT secret_hash, NULL::int8 AS session_expires_at, id, name, role, created_at,
                expires_at, last_used_at, revoked_at
            FROM api_keys WHERE id = $1"#,
            id,
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(StoredSecret::from))
    }

    pub(crate) async fn stamp_key_use(&self, id: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query!(
            "UPDATE api_keys SET last_used_at = $1 WHERE id = $2",
            now,
            id
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

    pub(crate) async fn secret_of_session(
        &self,
        id: &str,
    ) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query_as!(
            SecretRow,
            r#"SELECT s.secret_hash, s.expires_at AS "session_expires_at?", k.id, k.name, k.role,
                k.created_at, k.expires_at, k.last_used_at, k.revoked_at
            FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.id = $1"#,
            id,
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(StoredSecret::from))
    }

    pub(crate) async fn end_session(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query!("DELETE FROM sessions WHERE id = $1", id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
