//! A play's rating: only a player's first play of a level with a move is rated; it moves
//! the player's rating, and the level's when the player is established
//! ([`levelforge_store::rating::Standing::is_established`]).
//!
//! Compiled into each backend crate around its own `queries/plays/`; saving the two new
//! ratings is each backend's own ([`Dialect::save_ratings`]).

use levelforge_store::plays::{LockedLevel, PlayRatings, is_evidence};
use levelforge_store::rating::{Rating, Standing};
use levelforge_store::{NewPlay, StoreError, seed_to_column};
use levelforge_store_common::Dialect;

/// Holds the player's account for the play's transaction: [`StoreError::PlayerGone`] when
/// it was erased (its token still trusted a moment on some replica), so that nothing of
/// the player is stored after the erasure, on any backend.
pub(crate) async fn lock_player(tx: &mut super::Tx, player: &str) -> Result<(), StoreError> {
    sqlx::query_file!("queries/plays/lock_player.sql", player)
        .fetch_optional(&mut **tx)
        .await?
        .map(|_| ())
        .ok_or(StoreError::PlayerGone)
}

/// Rates the play if it has a move and is the player's first of this (locked) level with
/// one. One statement finds the player's rating row (made on a first play) only while the
/// account exists and the player has no earlier play of the level with a move: an erased
/// player, whose token another replica still trusts for a moment, gets no rating row back.
pub(crate) async fn rate_first_play(
    tx: &mut super::Tx,
    play: &NewPlay<'_>,
    player: &str,
    level: &LockedLevel,
) -> Result<Option<PlayRatings>, StoreError> {
    if !is_evidence(play) {
        return Ok(None);
    }
    let key = &play.key;
    let row = sqlx::query_file!(
        "queries/plays/first_play_rating.sql",
        key.game,
        player,
        key.difficulty.as_str(),
        seed_to_column(key.seed),
    )
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let player_before = Standing {
        rating: Rating {
            rating: row.rating,
            deviation: row.rating_deviation,
            volatility: row.rating_volatility,
        },
        rated_plays: row.rated_plays,
    };
    let ratings = PlayRatings::of(play, player_before, level.rating);
    crate::Backend::save_ratings(tx, key, player, &ratings.after).await?;
    Ok(Some(ratings))
}
