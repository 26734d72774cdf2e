//! Storing a play (`POST .../plays`): the idempotent replay of a repeated request, the
//! move replay that says what the play reached, the level stored first if it was served
//! while the database was down, the insert that rates it, and the race of two requests
//! with one idempotency key.

use std::net::IpAddr;

use levelforge_games::{CheckOutcome as Outcome, Game, GameError, Status};
use serde_json::{Value, json};

use crate::service::credentials::sha256_hex;
use crate::service::levels::{LevelError, LevelService};
use crate::service::rating::{Rating, tenths};
use crate::service::store::{
    Idempotency, IdempotentPlay, LevelKey, NewPlay, StoreError, StoredPlay,
};

/// Moves a stored play keeps at most: far above any tier's par, so that a long play that
/// never ends (a 64 KiB body of moves) does not fill the table.
pub const PLAY_STORED_MOVES_MAX: u32 = 1000;

/// One play as reported, of a level already named.
pub struct Play<'a> {
    pub game: &'static dyn Game,
    pub key: LevelKey,
    /// Whose cold generations are rate limited, if the level must be generated.
    pub client: Option<IpAddr>,
    /// The player whose token the request carries; `None`: anonymous, unrated.
    pub player: Option<&'a str>,
    pub solved: bool,
    /// In the game's own move format, which the game parses.
    pub moves: &'a Value,
    pub time_ms: Option<u64>,
    /// The caller's `Idempotency-Key`, if sent.
    pub idempotency_key: Option<&'a str>,
    /// What makes two requests the same one: the level they name and the exact body.
    pub fingerprint: &'a str,
}

/// What became of a play.
pub enum PlayOutcome {
    /// Stored now; the answer.
    Stored(Value),
    /// The same request was stored before under its idempotency key: its first answer,
    /// byte for byte.
    Replayed(String),
}

/// Why a play was not stored.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error("the play has moves after the level ended; send the moves up to the end")]
    MovesAfterEnd,
    #[error("this Idempotency-Key was used for a different play")]
    KeyReused,
    /// A concurrent request took the key, and its play is gone.
    #[error("an idempotency key vanished")]
    KeyVanished,
    #[error(transparent)]
    Level(#[from] LevelError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Replays, checks and stores `play`, or answers as the first request with its key was.
pub async fn record(levels: &LevelService, play: &Play<'_>) -> Result<PlayOutcome, PlayError> {
    let idempotency_key = play
        .idempotency_key
        .map(|key| callers_key(key, play.player, play.fingerprint));
    let idempotency_key = idempotency_key.as_deref();
    if let Some(key) = idempotency_key
        && let Some(first) = levels.idempotent_play(key).await?
    {
        return replayed(first, play.fingerprint);
    }
    let level = levels.get_for(play.game, play.key, play.client).await?;
    let outcome = play.game.check(level.document(), play.moves)?;
    if outcome.json["moves_ignored"]
        .as_u64()
        .is_some_and(|n| n > 0)
    {
        return Err(PlayError::MovesAfterEnd);
    }
    // A level served while the database was down is stored now, before its play.
    levels
        .ensure_stored(&play.key, &level)
        .await
        .inspect_err(|_| crate::metrics::db_error("play_write"))?;
    let moves_text = stored_moves(play.game, play.moves, outcome.moves_used)?;
    let stored = insert(levels, play, &outcome, &moves_text, idempotency_key).await;
    match (stored, idempotency_key) {
        (Ok(stored), _) => Ok(PlayOutcome::Stored(answer(play, &outcome, &stored))),
        // The same key committed by a concurrent request first: answer as it was answered.
        (Err(StoreError::IdempotencyKeyTaken), Some(key)) => {
            match levels.idempotent_play(key).await? {
                Some(first) => replayed(first, play.fingerprint),
                None => Err(PlayError::KeyVanished),
            }
        }
        (Err(StoreError::PlayerGone), _) => Err(StoreError::PlayerGone.into()),
        (Err(error), _) => {
            crate::metrics::db_error("play_write");
            Err(error.into())
        }
    }
}

/// Stores the play, with its answer under `idempotency_key` when there is one.
async fn insert(
    levels: &LevelService,
    play: &Play<'_>,
    outcome: &Outcome,
    moves_text: &str,
    idempotency_key: Option<&str>,
) -> Result<StoredPlay, StoreError> {
    let answer_text = |stored: &StoredPlay| answer(play, outcome, stored).to_string();
    levels
        .insert_play(&NewPlay {
            key: play.key,
            solved_claimed: play.solved,
            status: outcome.status,
            moves: moves_text,
            moves_used: outcome.moves_used,
            time_ms: play.time_ms,
            client: play.player,
            idempotency: idempotency_key.map(|key| Idempotency {
                key,
                fingerprint: play.fingerprint,
                answer: &answer_text,
            }),
        })
        .await
}

/// The answer to a stored play: the replay's outcome, the play's id, and the ratings it
/// moved.
fn answer(play: &Play<'_>, outcome: &Outcome, stored: &StoredPlay) -> Value {
    let mut answer = outcome.json.clone();
    answer["id"] = json!(stored.id);
    answer["rated"] = json!(stored.ratings.is_some());
    if let Some(ratings) = stored.ratings {
        answer["player_rating"] = rating_change(ratings.player_before, ratings.after.player);
        if ratings.after.level_moved {
            answer["level_rating"] = rating_change(ratings.level_before, ratings.after.level);
        }
    }
    answer["solved_claimed"] = json!(play.solved);
    answer["verified"] = json!(play.solved == (outcome.status == Status::Won));
    answer
}

/// The key a play's `Idempotency-Key` is stored under, which is the caller's own: a
/// player's keys are theirs alone (and erased with them); an anonymous caller, who has no
/// identity, owns a key together with the exact request. So no caller's key answers
/// another caller's play, and no answer says whether someone else used a key.
fn callers_key(key: &str, player: Option<&str>, fingerprint: &str) -> String {
    let scope = match player {
        Some(id) => format!("player {id}\n{key}"),
        None => format!("anonymous {fingerprint}\n{key}"),
    };
    sha256_hex(scope.as_bytes())
}

/// The first answer to an idempotency key, or an error when the key came with another
/// request.
fn replayed(first: IdempotentPlay, fingerprint: &str) -> Result<PlayOutcome, PlayError> {
    if first.fingerprint != fingerprint {
        return Err(PlayError::KeyReused);
    }
    Ok(PlayOutcome::Replayed(first.answer))
}

/// A rating's move in a play, rounded to tenths for people.
fn rating_change(before: Rating, after: Rating) -> Value {
    json!({
        "before": tenths(before.rating),
        "after": tenths(after.rating),
        "deviation": tenths(after.deviation),
    })
}

/// The moves a play is stored with: the ones the replay used (all of them, since moves
/// after the end are refused), only the first [`PLAY_STORED_MOVES_MAX`] of them.
fn stored_moves(game: &dyn Game, moves: &Value, used: u32) -> Result<String, GameError> {
    if used <= PLAY_STORED_MOVES_MAX {
        return Ok(moves.to_string());
    }
    Ok(game
        .moves_prefix(moves, PLAY_STORED_MOVES_MAX as usize)?
        .to_string())
}
