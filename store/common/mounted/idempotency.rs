//! A play's answer kept under its `Idempotency-Key`, so that a retried report gets the
//! first answer instead of a second play.
//!
//! Compiled into each backend crate around its own `queries/idempotency/`.

use levelforge_store::{Idempotency, IdempotentPlay, StoreError, StoredPlay};
use levelforge_store_common::Dialect;

impl crate::Backend {
    pub(crate) async fn idempotent_play(
        &self,
        key: &str,
    ) -> Result<Option<IdempotentPlay>, StoreError> {
        let play = sqlx::query_file_as!(IdempotentPlay, "queries/idempotency/find.sql", key)
            .fetch_optional(self.pool())
            .await?;
        Ok(play)
    }
}

/// Keeps the play's answer under its idempotency key, in the play's transaction: a
/// repeat finds either both or neither. A key taken by a concurrent play fails this one,
/// which rolls the play back. The row names the player whose key it is (`client`), so
/// that erasing the player deletes it.
pub(crate) async fn remember_answer(
    tx: &mut super::Tx,
    idempotency: &Idempotency<'_>,
    client: Option<&str>,
    stored: &StoredPlay,
) -> Result<(), StoreError> {
    let answer = (idempotency.answer)(stored);
    let inserted = sqlx::query_file!(
        "queries/idempotency/remember.sql",
        idempotency.key,
        stored.id,
        idempotency.fingerprint,
        answer,
        client,
    )
    .execute(&mut **tx)
    .await;
    match inserted {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
            Err(StoreError::IdempotencyKeyTaken)
        }
        Err(error) => Err(error.into()),
    }
}
