//! Recording plays: what the backends share. Each backend stores a play in one
//! transaction that first locks the level row (so that concurrent plays of one level, on
//! any replica, take turns at its rating), rates a player's first play of the level, inserts
//! the play, adds what it changes to the rollups and keeps the idempotency answer.

use levelforge_games::Status;

use crate::NewPlay;
use crate::rating::{RatedPlay, Rating, Standing, rate_play_of};
use crate::rollups::{Group, PlayFacts, Rollups};

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

impl PlayRatings {
    /// The ratings after a player of standing `player_before` plays a level rated
    /// `level_before` (the level's moves only if the player is established).
    pub fn of(play: &NewPlay<'_>, player_before: Standing, level_before: Rating) -> PlayRatings {
        PlayRatings {
            player_before: player_before.rating,
            level_before,
            after: rate_play_of(&player_before, level_before, play.status == Status::Won),
        }
    }
}

/// Whether a play says anything about the player and the level: a play without a move
/// (opened and left, or sent by a script) is stored and counted, never rated.
pub fn is_evidence(play: &NewPlay<'_>) -> bool {
    play.moves_used > 0
}

/// A replay's verdict as the `status` column holds it.
pub fn status_text(status: Status) -> &'static str {
    match status {
        Status::Won => "won",
        Status::Lost => "lost",
        Status::Unfinished => "unfinished",
    }
}

/// The played level as its locking statement read it.
#[derive(Clone, Debug)]
pub struct LockedLevel {
    pub version: i64,
    pub par: i64,
    pub rated_plays: i64,
    pub rating: Rating,
    /// The UTC day (`YYYY-MM-DD`) the play is stamped with.
    pub day: String,
}

/// What the play (and the rating's move) adds to the rollups.
pub fn play_rollups(
    play: &NewPlay<'_>,
    level: &LockedLevel,
    ratings: Option<&PlayRatings>,
) -> Rollups {
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
    if let Some(ratings) = ratings.filter(|r| r.after.level_moved) {
        let before = (level.rated_plays > 0).then_some(level.rating.rating);
        rollups.move_rating(&group, level.par, before, ratings.after.level.rating);
    }
    rollups
}
