//! Recording plays and the ratings they move, in one transaction.
//!
//! A rated play (a client's first play of a level) reads and rewrites two ratings, so
//! concurrent plays of one level, on any replica, must take turns. The transaction's
//! first statement is a no-op UPDATE of the level row: PostgreSQL then holds that row's
//! lock (which the play's foreign key does not conflict with), SQLite its write lock.
//! A second play by the same client waits there and then sees the first one. The same
//! transaction adds the play (and the rating's move) to the statistics rollups, in the
//! statement that inserts the play: keeping them costs no round trip of its own.

use levelforge_games::Status;
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use super::rollups::{Batch, Group, PlayFacts, Rollups, random_shard};
use super::sql::{Backend, SqlStore};
use super::{Idempotency, IdempotentPlay, LevelKey, NewPlay, StoreError, seed_to_column};
use crate::rating::{RatedPlay, Rating, rate_play};

/// What storing a play did.
#[derive(Clone, Copy, Debug)]
pub struct StoredPlay {
    pub id: i64,
    /// Both sides' ratings before and after, when the play was rated.
    pub ratings: Option<PlayRatings>,
}

#[derive(Clone, Copy, Debug)]
pub struct PlayRatings {
    pub player_before: Rating,
    pub level_before: Rating,
    pub after: RatedPlay,
}

const RATING_COLUMNS: &str = "rating, rating_deviation, rating_volatility";

fn rating_of(row: &AnyRow) -> Result<Rating, sqlx::Error> {
    Ok(Rating {
        rating: row.try_get("rating")?,
        deviation: row.try_get("rating_deviation")?,
        volatility: row.try_get("rating_volatility")?,
    })
}

/// A replay's verdict as the `status` column holds it.
pub(super) fn status_text(status: Status) -> &'static str {
    match status {
        Status::Won => "won",
        Status::Lost => "lost",
        Status::Unfinished => "unfinished",
    }
}

/// The played level, locked for the transaction.
struct LockedLevel {
    version: i64,
    par: i64,
    rated_plays: i64,
    rating: Rating,
    /// The clock read with the lock (`Backend::clock`): the play's stamp and UTC day.
    stamp: String,
    day: String,
}

impl SqlStore {
    pub(super) async fn record_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        let mut tx = self.pool().begin().await?;
        // None: not stored, and the insert's foreign key reports it.
        let level = lock_level(&mut tx, &play.key, self.backend()).await?;
        let ratings = match (play.client, &level) {
            (Some(client), Some(level)) => rate_first_play(&mut tx, play, client, level).await?,
            _ => None,
        };
        let rollups = level
            .as_ref()
            .filter(|_| self.keeps_rollups())
            .map(|level| play_rollups(play, level, ratings.as_ref()));
        let stamp = level.map(|level| level.stamp);
        let id = insert(
            &mut tx,
            play,
            ratings.as_ref(),
            stamp,
            rollups,
            self.backend(),
        )
        .await?;
        let stored = StoredPlay { id, ratings };
        if let Some(idempotency) = &play.idempotency {
            remember_answer(&mut tx, idempotency, &stored).await?;
        }
        tx.commit().await?;
        Ok(stored)
    }

    pub(super) async fn play_by_idempotency_key(
        &self,
        key: &str,
    ) -> Result<Option<IdempotentPlay>, StoreError> {
        let row = sqlx::query("SELECT fingerprint, answer FROM play_idempotency WHERE key = $1")
            .bind(key)
            .fetch_optional(self.pool())
            .await?;
        row.map(|row| {
            Ok(IdempotentPlay {
                fingerprint: row.try_get("fingerprint")?,
                answer: row.try_get("answer")?,
            })
        })
        .transpose()
    }
}

/// Keeps the play's answer under its idempotency key, in the play's transaction: a
/// repeat finds either both or neither. A key taken by a concurrent play rolls this one
/// back.
async fn remember_answer(
    tx: &mut Transaction<'static, Any>,
    idempotency: &Idempotency<'_>,
    stored: &StoredPlay,
) -> Result<(), StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO play_idempotency (key, play_id, fingerprint, answer) VALUES ($1, $2, $3, $4)",
    )
    .bind(idempotency.key)
    .bind(stored.id)
    .bind(idempotency.fingerprint)
    .bind((idempotency.answer)(stored))
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

/// What the play (and the rating's move) adds to the rollups.
fn play_rollups(play: &NewPlay<'_>, level: &LockedLevel, ratings: Option<&PlayRatings>) -> Rollups {
    let group = Group {
        game: play.key.game.into(),
        difficulty: play.key.difficulty.as_str().into(),
        version: level.version,
    };
    let mut rollups = Rollups::default();
    rollups.add_play(&PlayFacts {
        group: group.clone(),
        par: level.par,
        won: play.status == Status::Won,
        moves_used: play.moves_used.into(),
        time_ms: play.time_ms.map(|t| t as i64),
        day: level.day.clone(),
    });
    if let Some(ratings) = ratings {
        let before = (level.rated_plays > 0).then_some(level.rating.rating);
        rollups.move_rating(&group, level.par, before, ratings.after.level.rating);
    }
    rollups
}

async fn lock_level(
    tx: &mut Transaction<'static, Any>,
    key: &LevelKey,
    backend: Backend,
) -> Result<Option<LockedLevel>, StoreError> {
    let row = bind_key(
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE levels SET rated_plays = rated_plays \
             WHERE game = $1 AND difficulty = $2 AND seed = $3 \
             RETURNING version, par, rated_plays, {RATING_COLUMNS}, {}",
            backend.clock()
        ))),
        key,
    )
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    Ok(Some(LockedLevel {
        version: row.try_get("version")?,
        par: row.try_get("par")?,
        rated_plays: row.try_get("rated_plays")?,
        rating: rating_of(&row)?,
        stamp: row.try_get("stamp")?,
        day: row.try_get("day")?,
    }))
}

/// Rates the play if it is the player's first of this (locked) level.
async fn rate_first_play(
    tx: &mut Transaction<'static, Any>,
    play: &NewPlay<'_>,
    client: &str,
    level: &LockedLevel,
) -> Result<Option<PlayRatings>, StoreError> {
    let key = &play.key;
    let earlier: i64 = bind_key(
        sqlx::query(
            "SELECT COUNT(*) AS earlier FROM plays \
             WHERE game = $1 AND difficulty = $2 AND seed = $3 AND client = $4",
        ),
        key,
    )
    .bind(client)
    .fetch_one(&mut **tx)
    .await?
    .try_get("earlier")?;
    if earlier > 0 {
        return Ok(None);
    }
    // Only a player that still exists is rated: one erased a moment ago on another
    // replica, whose token that replica still trusts, gets no rating row back.
    let player_row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO players (game, client) \
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM player_accounts WHERE id = $2) \
         ON CONFLICT (game, client) DO UPDATE SET rated_plays = players.rated_plays \
         RETURNING {RATING_COLUMNS}"
    )))
    .bind(key.game)
    .bind(client)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(player_row) = player_row else {
        return Ok(None);
    };
    let player_before = rating_of(&player_row)?;
    let ratings = PlayRatings {
        player_before,
        level_before: level.rating,
        after: rate_play(player_before, level.rating, play.status == Status::Won),
    };
    save_ratings(tx, key, client, &ratings.after).await?;
    Ok(Some(ratings))
}

async fn save_ratings(
    tx: &mut Transaction<'static, Any>,
    key: &LevelKey,
    client: &str,
    after: &RatedPlay,
) -> Result<(), StoreError> {
    let set = "SET rating = $1, rating_deviation = $2, rating_volatility = $3, \
               rated_plays = rated_plays + 1";
    bind_rating(
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE levels {set} WHERE game = $4 AND difficulty = $5 AND seed = $6"
        ))),
        &after.level,
    )
    .bind(key.game)
    .bind(key.difficulty.as_str())
    .bind(seed_to_column(key.seed))
    .execute(&mut **tx)
    .await?;
    bind_rating(
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE players {set} WHERE game = $4 AND client = $5"
        ))),
        &after.player,
    )
    .bind(key.game)
    .bind(client)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts the play stamped at `stamp`, and in the same query (one round trip) adds
/// `rollups` to the rollup tables in a random shard; returns the play's id.
async fn insert(
    tx: &mut Transaction<'static, Any>,
    play: &NewPlay<'_>,
    ratings: Option<&PlayRatings>,
    stamp: Option<String>,
    rollups: Option<Rollups>,
    backend: Backend,
) -> Result<i64, StoreError> {
    let (rated, level_rating) = Backend::nullable_float(ratings.map(|r| r.after.level.rating));
    let key = &play.key;
    let mut batch = Batch::new(backend, true);
    let q = batch.start(
        "INSERT INTO plays (game, difficulty, seed, solved_claimed, status, moves, moves_used, \
         time_ms, client, rated, level_rating, created_at) VALUES (",
    );
    let mut values = q.separated(", ");
    values
        .push_bind(key.game)
        .push_bind(key.difficulty.as_str())
        .push_bind(seed_to_column(key.seed))
        .push_bind(play.solved_claimed)
        .push_bind(status_text(play.status))
        .push_bind(play.moves.to_string())
        .push_bind(play.moves_used as i32)
        .push_bind(play.time_ms.map(|t| t as i64))
        // The player's id only while the player exists (see `rate_first_play`).
        .push("(SELECT id FROM player_accounts WHERE id = ")
        .push_bind_unseparated(play.client.map(str::to_string))
        .push_unseparated(")")
        .push_bind(rated)
        .push("CASE WHEN ")
        .push_bind_unseparated(rated)
        .push_unseparated(" THEN ")
        .push_bind_unseparated(level_rating)
        .push_unseparated(" END");
    q.push(", ");
    backend.push_stamp(q, stamp);
    q.push(") RETURNING id");
    batch.end(tx).await?;
    if let Some(rollups) = rollups {
        rollups.upsert_in(&mut batch, tx, random_shard()).await?;
    }
    let rows = batch.fetch_first_rows(tx).await?;
    let row = rows.first().ok_or(sqlx::Error::RowNotFound)?;
    Ok(row.try_get("id")?)
}

type AnyQuery<'q> = sqlx::query::Query<'q, Any, sqlx::any::AnyArguments>;

fn bind_key<'q>(query: AnyQuery<'q>, key: &LevelKey) -> AnyQuery<'q> {
    query
        .bind(key.game)
        .bind(key.difficulty.as_str())
        .bind(seed_to_column(key.seed))
}

fn bind_rating<'q>(query: AnyQuery<'q>, rating: &Rating) -> AnyQuery<'q> {
    query
        .bind(rating.rating)
        .bind(rating.deviation)
        .bind(rating.volatility)
}
