//! Routes for mobile clients: levels, previews, checks and plays.

use std::sync::LazyLock;

use axum::Json;
use axum::extract::{FromRequest, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use levelforge_games::{Game, Limits, Status};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

use super::AppState;
use super::auth::MaybePlayer;
use super::params::{self, ClientIp, JsonBody, JsonBytes, LevelQuery};
use super::problem::ApiError;
use crate::compression::{self, HeaderTemplates, Variants};
use crate::levels::ServedLevel;
use crate::rating::{Rating, tenths};
use crate::store::{Idempotency, IdempotentPlay, NewPlay, StoreError, StoredPlay};

type LevelPath = Path<(String, String)>;

/// Resolves the key and fetches (or generates) its level.
async fn served(
    state: &AppState,
    (difficulty, seed): &(String, String),
    query: &LevelQuery,
    client: ClientIp,
) -> Result<
    (
        &'static dyn levelforge_games::Game,
        crate::store::LevelKey,
        std::sync::Arc<ServedLevel>,
    ),
    ApiError,
> {
    let (game, key) =
        params::level_key(difficulty, seed, query.game.as_deref(), state.default_game)?;
    let level = state.levels.get_for(game, key, client.0).await?;
    Ok((game, key, level))
}

pub async fn level(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (_, _, level) = served(&state, &path, &query, client).await?;
    Ok(compression::respond(&headers, &level.body, &JSON))
}

pub async fn preview(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (game, _, level) = served(&state, &path, &query, client).await?;
    if let Some(moves) = &query.moves {
        let svg = game.preview_after(level.document(), &params::query_moves(moves))?;
        return Ok(compression::respond(&headers, &Variants::new(svg), &SVG));
    }
    let svg = level.preview(query.solution, |document| {
        game.preview_svg(document, query.solution)
    })?;
    Ok(compression::respond(&headers, svg, &SVG))
}

/// The body of `check` and `hint`; other fields are ignored.
#[derive(Deserialize, FromRequest)]
#[from_request(via(JsonBody), rejection(ApiError))]
pub struct MovesBody {
    /// In the game's own move format, which the game parses.
    moves: Value,
}

pub async fn check(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    MovesBody { moves }: MovesBody,
) -> Result<Response, ApiError> {
    let (game, _, level) = served(&state, &path, &query, client).await?;
    let mut outcome = game.check(level.document(), &moves)?;
    if query.position {
        outcome.json["position"] = game.position(level.document(), &moves)?;
    }
    Ok(Json(outcome.json).into_response())
}

/// A hint for the position the body's `moves` reach: searched in the verify pool, within
/// the state budget of `/verify` and its time limit (503 when either runs out).
pub async fn hint(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    MovesBody { moves }: MovesBody,
) -> Result<Response, ApiError> {
    super::rate_limit(
        state.hint_limiter.as_deref(),
        client.0,
        "hints from this client",
    )?;
    let (game, _, level) = served(&state, &path, &query, client).await?;
    let max_states = state.verify_max_states;
    let hint = state
        .levels
        .run_verification(move |stop| {
            game.hint(level.document(), &moves, &Limits { max_states, stop })
        })
        .await??;
    Ok(Json(hint).into_response())
}

/// The header that makes a play's POST safe to repeat.
const IDEMPOTENCY_KEY: &str = "idempotency-key";

pub async fn play(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    player: MaybePlayer,
    query: LevelQuery,
    headers: HeaderMap,
    body: JsonBytes<PlayReport>,
) -> Result<Response, ApiError> {
    let JsonBytes {
        value: report,
        bytes: raw,
    } = body;
    report.refuse_client()?;
    let sent_key = idempotency_key(&headers)?;
    super::rate_limit(
        state.play_limiter.as_deref(),
        client.0,
        "plays from this client",
    )?;
    let player_id = player.0.as_ref().map(|player| player.id.as_str());
    let fingerprint = request_fingerprint(&path, query.game.as_deref(), &raw);
    let stored_key = sent_key.map(|key| callers_key(key, player_id, &fingerprint));
    let idempotency_key = stored_key.as_deref();
    if let Some(key) = idempotency_key
        && let Some(first) = state.levels.store().idempotent_play(key).await?
    {
        return replayed(first, &fingerprint);
    }
    let (game, key, level) = served(&state, &path, &query, client).await?;
    let outcome = game.check(level.document(), &report.moves)?;
    if outcome.json["moves_ignored"]
        .as_u64()
        .is_some_and(|n| n > 0)
    {
        return Err(ApiError::Unprocessable {
            detail: "the play has moves after the level ended; send the moves up to the end".into(),
            rule: super::problem::PLAY_MOVES_AFTER_END,
        });
    }
    // A level served while the database was down is stored now, before its play.
    state
        .levels
        .ensure_stored(&key, &level)
        .await
        .inspect_err(|_| crate::metrics::db_error("play_write"))?;
    let answer_of = |stored: &StoredPlay| {
        let mut answer = outcome.json.clone();
        answer["id"] = json!(stored.id);
        answer["rated"] = json!(stored.ratings.is_some());
        if let Some(ratings) = stored.ratings {
            answer["player_rating"] = rating_change(ratings.player_before, ratings.after.player);
            if ratings.after.level_moved {
                answer["level_rating"] = rating_change(ratings.level_before, ratings.after.level);
            }
        }
        answer["solved_claimed"] = json!(report.solved);
        answer["verified"] = json!(report.solved == (outcome.status == Status::Won));
        answer
    };
    let answer_text = |stored: &StoredPlay| answer_of(stored).to_string();
    let moves_text = stored_moves(game, &report.moves, outcome.moves_used)?;
    let stored = state
        .levels
        .store()
        .insert_play(&NewPlay {
            key,
            solved_claimed: report.solved,
            status: outcome.status,
            moves: &moves_text,
            moves_used: outcome.moves_used,
            time_ms: report.time_ms,
            client: player_id,
            idempotency: idempotency_key.map(|key| Idempotency {
                key,
                fingerprint: &fingerprint,
                answer: &answer_text,
            }),
        })
        .await;
    match (stored, idempotency_key) {
        (Ok(stored), _) => Ok((StatusCode::CREATED, Json(answer_of(&stored))).into_response()),
        // The same key committed by a concurrent request first: answer as it was answered.
        (Err(StoreError::IdempotencyKeyTaken), Some(key)) => {
            match state.levels.store().idempotent_play(key).await? {
                Some(first) => replayed(first, &fingerprint),
                None => Err(ApiError::Internal("an idempotency key vanished".into())),
            }
        }
        (Err(StoreError::PlayerGone), _) => Err(StoreError::PlayerGone.into()),
        (Err(error), _) => {
            crate::metrics::db_error("play_write");
            Err(error.into())
        }
    }
}

/// The `Idempotency-Key` header, if sent: 1 to 255 visible ASCII characters.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .filter(|k| (1..=255).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()))
        .map(Some)
        .ok_or_else(|| {
            ApiError::BadRequest(
                "`Idempotency-Key` must be 1 to 255 visible ASCII characters".into(),
            )
        })
}

/// What makes two plays of one caller the same request: the level they name and the
/// exact body. (Who sends them is in the key they are stored under: [`callers_key`].)
fn request_fingerprint(
    (difficulty, seed): &(String, String),
    game: Option<&str>,
    body: &[u8],
) -> String {
    let mut request = format!("{}/{difficulty}/{seed}\n", game.unwrap_or("")).into_bytes();
    request.extend_from_slice(body);
    compression::strong_etag(&request)
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
    crate::auth::sha256_hex(scope.as_bytes())
}

/// The first answer to an idempotency key, or 422 when the key came with another request.
fn replayed(first: IdempotentPlay, fingerprint: &str) -> Result<Response, ApiError> {
    if first.fingerprint != fingerprint {
        return Err(ApiError::Unprocessable {
            detail: "this Idempotency-Key was used for a different play".into(),
            rule: super::problem::PLAY_IDEMPOTENCY_KEY_REUSED,
        });
    }
    let mut response = (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        first.answer,
    )
        .into_response();
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    Ok(response)
}

/// A rating's move in a play, rounded to tenths for people.
fn rating_change(before: Rating, after: Rating) -> Value {
    json!({
        "before": tenths(before.rating),
        "after": tenths(after.rating),
        "deviation": tenths(after.deviation),
    })
}

/// The body of `POST .../plays`. Fields the contract does not name are ignored, but for
/// `client`.
#[derive(Deserialize)]
pub struct PlayReport {
    solved: bool,
    /// In the game's own move format, which the game parses.
    moves: Value,
    #[serde(default, deserialize_with = "millis")]
    time_ms: Option<u64>,
    /// Whether the body has a `client` field, of any value (null too).
    #[serde(default, deserialize_with = "present")]
    client: bool,
}

impl PlayReport {
    /// 400 for a body that names its player: the token does, so that no body can move
    /// another player's rating.
    fn refuse_client(&self) -> Result<(), ApiError> {
        if !self.client {
            return Ok(());
        }
        Err(ApiError::BadRequest(
            "`client` is not accepted: a play is rated for the player whose token it carries \
             (`Authorization: Bearer <token>`, from `POST /players`); without a token it is \
             stored as an anonymous, unrated play"
                .into(),
        ))
    }
}

/// `time_ms`: absent, null, or whole milliseconds that fit the store's signed 64 bits.
fn millis<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Option::<u64>::deserialize(deserializer)
        .ok()
        .filter(|t| t.is_none_or(|t| i64::try_from(t).is_ok()))
        .ok_or_else(|| {
            serde::de::Error::custom("must be a whole number of milliseconds up to 2^63 - 1")
        })
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// Moves a stored play keeps at most: far above any tier's par, so that a long play that
/// never ends (a 64 KiB body of moves) does not fill the table.
pub const PLAY_STORED_MOVES_MAX: u32 = 1000;

/// The moves a play is stored with: the ones the replay used (all of them, since moves
/// after the end are refused), only the first [`PLAY_STORED_MOVES_MAX`] of them.
fn stored_moves(game: &dyn Game, moves: &Value, used: u32) -> Result<String, ApiError> {
    if used <= PLAY_STORED_MOVES_MAX {
        return Ok(moves.to_string());
    }
    Ok(game
        .moves_prefix(moves, PLAY_STORED_MOVES_MAX as usize)?
        .to_string())
}

/// The headers of levels and previews, cacheable forever (`compression::respond`).
pub(super) static JSON: LazyLock<HeaderTemplates> = LazyLock::new(|| forever("application/json"));
pub(super) static SVG: LazyLock<HeaderTemplates> = LazyLock::new(|| forever("image/svg+xml"));

fn forever(content_type: &'static str) -> HeaderTemplates {
    HeaderTemplates::new(content_type, "public, max-age=31536000, immutable")
}
