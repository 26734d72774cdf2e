//! Recording a play, its ratings and its rollups in one transaction.
//!
//! The transaction's first statement is a no-op UPDATE of the level row: it holds that
//! row's lock (which the play's foreign key does not conflict with), so concurrent plays of
//! one level, on any replica, take turns at its rating. `now()` is the transaction's start,
//! the same at every reading: the play's day for the rollups is read with the lock.

use levelforge_store::plays::{LockedLevel, PlayRatings, play_rollups, status_text};
use levelforge_store::rating::{RatedPlay, Rating};
use levelforge_store::rollups::random_shard;
use levelforge_store::{LevelKey, NewPlay, StoreError, StoredPlay, seed_to_column};
use levelforge_store_common::Dialect;

use crate::PgStore;
use crate::common::Tx;
use crate::common::first_play::{lock_player, rate_first_play};
use crate::common::idempotency::remember_answer;

impl PgStore {
    pub(crate) async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        let mut tx = self.begin_write().await?;
        // None: not stored, and the insert's foreign key reports it.
        let level = lock_level(&mut tx, &play.key).await?;
        if let Some(player) = play.client {
            lock_player(&mut tx, player).await?;
        }
        let ratings = match (play.client, &level) {
            (Some(player), Some(level)) => rate_first_play(&mut tx, play, player, level).await?,
            _ => None,
        };
        let id = insert(&mut tx, play, ratings.as_ref()).await?;
        if let Some(level) = level.filter(|_| self.rollups) {
            let rollups = play_rollups(play, &level, ratings.as_ref());
            crate::rollups::upsert(&mut tx, &rollups, random_shard()).await?;
        }
        let stored = StoredPlay { id, ratings };
        if let Some(idempotency) = &play.idempotency {
            remember_answer(&mut tx, idempotency, play.client, &stored).await?;
        }
        tx.commit().await?;
        Ok(stored)
    }
}

async fn lock_level(tx: &mut Tx, key: &LevelKey) -> Result<Option<LockedLevel>, StoreError> {
    let row = sqlx::query!(
        r#"UPDATE levels SET rated_plays = rated_plays
        WHERE game = $1 AND difficulty = $2 AND seed = $3
        RETURNING version::int8 AS "version!", par::int8 AS "par!",
            rated_plays::int8 AS "rated_plays!", rating, rating_deviation, rating_volatility,
            to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day!""#,
        key.game,
        key.difficulty.as_str(),
        seed_to_column(key.seed),
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|row| LockedLevel {
        version: row.version,
        par: row.par,
        rated_plays: row.rated_plays,
        rating: Rating {
            rating: row.rating,
            deviation: row.rating_deviation,
            volatility: row.rating_volatility,
        },
        day: row.day,
    }))
}

/// The player's new rating, and the level's when it moved, in one statement.
pub(crate) async fn save_ratings(
    tx: &mut Tx,
    key: &LevelKey,
    player: &str,
    after: &RatedPlay,
) -> Result<(), StoreError> {
    let (level, me) = (&after.level, &after.player);
    sqlx::query!(
        "WITH level AS (
            UPDATE levels SET rating = $1, rating_deviation = $2, rating_volatility = $3,
                rated_plays = rated_plays + 1
            WHERE game = $7 AND difficulty = $8 AND seed = $9 AND $11
        )
        UPDATE players SET rating = $4, rating_deviation = $5, rating_volatility = $6,
            rated_plays = rated_plays + 1
        WHERE game = $7 AND client = $10",
        level.rating,
        level.deviation,
        level.volatility,
        me.rating,
        me.deviation,
        me.volatility,
        key.game,
        key.difficulty.as_str(),
        seed_to_column(key.seed),
        player,
        after.level_moved,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts the play; returns its id. The player's id is kept only while the player
/// exists (see `rate_first_play`).
async fn insert(
    tx: &mut Tx,
    play: &NewPlay<'_>,
    ratings: Option<&PlayRatings>,
) -> Result<i64, StoreError> {
    let key = &play.key;
    let id = sqlx::query_scalar!(
        "INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves, moves_used,
            time_ms, client, rated, level_rating)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
            (SELECT id FROM player_accounts WHERE id = $9), $10, $11)
        RETURNING id",
        key.game,
        key.difficulty.as_str(),
        seed_to_column(key.seed),
        play.solved_claimed,
        status_text(play.status),
        play.moves,
        play.moves_used as i32,
        play.time_ms.map(|t| t as i64),
        play.client,
        ratings.is_some(),
        ratings.map(|r| r.after.level.rating),
    )
    .fetch_one(&mut **tx)
    .await?;
    Ok(id)
}
