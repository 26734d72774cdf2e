//! Recording a play, its ratings and its rollups in one transaction.
//!
//! The transaction begins IMMEDIATE: it holds the database's one write lock from its start,
//! so concurrent plays, from any process, take turns. The clock is read once, with the
//! level: the play is stamped with that reading, and its day goes to the rollups.

use levelforge_store::plays::{LockedLevel, PlayRatings, play_rollups, status_text};
use levelforge_store::rating::{RatedPlay, Rating};
use levelforge_store::rollups::random_shard;
use levelforge_store::{LevelKey, NewPlay, StoreError, StoredPlay, seed_to_column};
use levelforge_store_common::Dialect;

use crate::SqliteStore;
use crate::common::Tx;
use crate::common::first_play::{lock_player, rate_first_play};
use crate::common::idempotency::remember_answer;

impl SqliteStore {
    pub(crate) async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        let mut tx = self.begin_write().await?;
        // None: not stored, and the insert's foreign key reports it.
        let level = read_level(&mut tx, &play.key).await?;
        if let Some(player) = play.client {
            lock_player(&mut tx, player).await?;
        }
        let ratings = match (play.client, &level) {
            (Some(player), Some((level, _))) => {
                rate_first_play(&mut tx, play, player, level).await?
            }
            _ => None,
        };
        let stamp = level.as_ref().map(|(_, stamp)| stamp.as_str());
        let id = insert(&mut tx, play, ratings.as_ref(), stamp).await?;
        if let Some((level, _)) = level.filter(|_| self.rollups) {
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

/// The played level and the clock's reading (`YYYY-MM-DD HH:MM:SS`, UTC).
async fn read_level(
    tx: &mut Tx,
    key: &LevelKey,
) -> Result<Option<(LockedLevel, String)>, StoreError> {
    let (game, tier, seed) = (key.game, key.difficulty.as_str(), seed_to_column(key.seed));
    let row = sqlx::query!(
        r#"SELECT version, par, rated_plays, rating, rating_deviation, rating_volatility,
            CURRENT_TIMESTAMP AS "stamp!: String"
        FROM levels WHERE game = ?1 AND difficulty = ?2 AND seed = ?3"#,
        game,
        tier,
        seed,
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|row| {
        let level = LockedLevel {
            version: row.version,
            par: row.par,
            rated_plays: row.rated_plays,
            rating: Rating {
                rating: row.rating,
                deviation: row.rating_deviation,
                volatility: row.rating_volatility,
            },
            day: row.stamp[..10].to_string(),
        };
        (level, row.stamp)
    }))
}

/// The player's new rating, and the level's when it moved.
pub(crate) async fn save_ratings(
    tx: &mut Tx,
    key: &LevelKey,
    player: &str,
    after: &RatedPlay,
) -> Result<(), StoreError> {
    let (game, tier, seed) = (key.game, key.difficulty.as_str(), seed_to_column(key.seed));
    let level = &after.level;
    if after.level_moved {
        sqlx::query!(
            "UPDATE levels SET rating = ?1, rating_deviation = ?2, rating_volatility = ?3,
                rated_plays = rated_plays + 1
            WHERE game = ?4 AND difficulty = ?5 AND seed = ?6",
            level.rating,
            level.deviation,
            level.volatility,
            game,
            tier,
            seed,
        )
        .execute(&mut **tx)
        .await?;
    }
    let me = &after.player;
    sqlx::query!(
        "UPDATE players SET rating = ?1, rating_deviation = ?2, rating_volatility = ?3,
            rated_plays = rated_plays + 1
        WHERE game = ?4 AND client = ?5",
        me.rating,
        me.deviation,
        me.volatility,
        game,
        player,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts the play stamped `stamp` (None: the level is missing, and the foreign key
/// fails the insert); returns its id. The player's id is kept only while the player
/// exists (see `rate_first_play`).
async fn insert(
    tx: &mut Tx,
    play: &NewPlay<'_>,
    ratings: Option<&PlayRatings>,
    stamp: Option<&str>,
) -> Result<i64, StoreError> {
    let key = &play.key;
    let (game, tier, seed) = (key.game, key.difficulty.as_str(), seed_to_column(key.seed));
    let status = status_text(play.status);
    let moves_used = i64::from(play.moves_used);
    let time_ms = play.time_ms.map(|t| t as i64);
    let rated = ratings.is_some();
    let level_rating = ratings.map(|r| r.after.level.rating);
    let id = sqlx::query_scalar!(
        r#"INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves, moves_used,
            time_ms, client, rated, level_rating, created_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,
            (SELECT id FROM player_accounts WHERE id = ?9), ?10, ?11,
            COALESCE(?12, CURRENT_TIMESTAMP))
        RETURNING id AS "id!""#,
        game,
        tier,
        seed,
        play.solved_claimed,
        status,
        play.moves,
        moves_used,
        time_ms,
        play.client,
        rated,
        level_rating,
        stamp,
    )
    .fetch_one(&mut **tx)
    .await?;
    Ok(id)
}
