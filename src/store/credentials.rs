//! Players, keys for people and dashboard sessions (docs/security.md). The store keeps
//! each secret only as the hex SHA-256 of its whole token, under the token's public id;
//! `crate::auth` compares the hashes, in constant time.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::StoreError;
use super::sql::SqlStore;

/// A key as `levelforge keys list` shows it; times are Unix seconds.
#[derive(Clone, Debug)]
pub struct KeyRecord {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// What a presented key or session is checked against.
#[derive(Clone, Debug)]
pub struct StoredSecret {
    pub secret_hash: String,
    pub key: KeyRecord,
    /// A session's own end; `None` for a key.
    pub session_expires_at: Option<i64>,
}

/// A new key, before it is stored.
pub struct NewKey<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub role: &'a str,
    pub secret_hash: &'a str,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

/// One game's rating of a player.
#[derive(Clone, Debug)]
pub struct PlayerRating {
    pub game: String,
    pub rating: f64,
    pub deviation: f64,
    pub plays: i64,
}

const KEY_COLUMNS: &str =
    "k.id, k.name, k.role, k.created_at, k.expires_at, k.last_used_at, k.revoked_at";

fn key_of(row: &AnyRow) -> Result<KeyRecord, sqlx::Error> {
    Ok(KeyRecord {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        role: row.try_get("role")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        last_used_at: row.try_get("last_used_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

impl SqlStore {
    pub async fn create_player(
        &self,
        id: &str,
        token_hash: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO player_accounts (id, token_hash, created_at) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(token_hash)
            .bind(now)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The stored token hash of a player, if the player exists.
    pub async fn player_token_hash(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT token_hash FROM player_accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|row| row.try_get("token_hash")).transpose()?)
    }

    pub async fn player_ratings(&self, id: &str) -> Result<Vec<PlayerRating>, StoreError> {
        let rows = sqlx::query(
            "SELECT game, rating, rating_deviation, rated_plays FROM players \
             WHERE client = $1 ORDER BY game",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(PlayerRating {
                    game: row.try_get("game")?,
                    rating: row.try_get("rating")?,
                    deviation: row.try_get("rating_deviation")?,
                    plays: i64::from(row.try_get::<i32, _>("rated_plays")?),
                })
            })
            .collect()
    }

    /// Erases a player: the account (so its token), its ratings, and its name on its
    /// plays, which stay as anonymous plays so that every statistic keeps its count.
    pub async fn erase_player(&self, id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        for sql in [
            "DELETE FROM players WHERE client = $1",
            "UPDATE plays SET client = NULL WHERE client = $1",
            "DELETE FROM player_accounts WHERE id = $1",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn create_key(&self, key: &NewKey<'_>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO api_keys (id, name, role, secret_hash, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(key.id)
        .bind(key.name)
        .bind(key.role)
        .bind(key.secret_hash)
        .bind(key.created_at)
        .bind(key.expires_at)
        .execute(self.pool())
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(format!(
                "a live key is already named `{}`: revoke it or pick another name",
                key.name
            )),
            _ => error.into(),
        })?;
        Ok(())
    }

    pub async fn keys(&self) -> Result<Vec<KeyRecord>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {KEY_COLUMNS} FROM api_keys k ORDER BY k.created_at, k.id"
        )))
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(key_of).collect::<Result<_, _>>()?)
    }

    /// Keys neither revoked nor expired at `now`.
    pub async fn live_key_count(&self, now: i64) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS live FROM api_keys \
             WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)",
        )
        .bind(now)
        .fetch_one(self.pool())
        .await?;
        Ok(row.try_get("live")?)
    }

    /// Revokes the live key with this name, or the key with this id; the key revoked.
    pub async fn revoke_key(
        &self,
        name_or_id: &str,
        now: i64,
    ) -> Result<Option<KeyRecord>, StoreError> {
        let row = sqlx::query(
            "UPDATE api_keys SET revoked_at = $1 \
             WHERE revoked_at IS NULL AND (id = $2 OR name = $2) \
             RETURNING id, name, role, created_at, expires_at, last_used_at, revoked_at",
        )
        .bind(now)
        .bind(name_or_id)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.as_ref().map(key_of).transpose()?)
    }

    /// A key's stored hash and state.
    pub async fn key_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT k.secret_hash, {KEY_COLUMNS} FROM api_keys k WHERE k.id = $1"
        )))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(StoredSecret {
                secret_hash: row.try_get("secret_hash")?,
                key: key_of(&row)?,
                session_expires_at: None,
            })
        })
        .transpose()
    }

    /// Stamps a key's last use (once per credential cache period and replica).
    pub async fn touch_key(&self, id: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn create_session(
        &self,
        id: &str,
        secret_hash: &str,
        key_id: &str,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        // Ended sessions go as new ones start: the table holds only live ones.
        sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(self.pool())
            .await?;
        sqlx::query(
            "INSERT INTO sessions (id, secret_hash, key_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(secret_hash)
        .bind(key_id)
        .bind(now)
        .bind(expires_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A session's stored hash, its end, and the key it was opened with.
    pub async fn session_secret(&self, id: &str) -> Result<Option<StoredSecret>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT s.secret_hash, s.expires_at AS session_expires_at, {KEY_COLUMNS} \
             FROM sessions s JOIN api_keys k ON k.id = s.key_id WHERE s.id = $1"
        )))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(StoredSecret {
                secret_hash: row.try_get("secret_hash")?,
                key: key_of(&row)?,
                session_expires_at: row.try_get("session_expires_at")?,
            })
        })
        .transpose()
    }

    pub async fn delete_session(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
