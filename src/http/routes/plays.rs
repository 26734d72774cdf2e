//! `POST /levels/{difficulty}/{seed}/plays`: a play, replayed, stored and rated by the
//! plays service; safe to repeat with an `Idempotency-Key`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::levels::{LevelPath, level_address};
use crate::compression;
use crate::http::auth::MaybePlayer;
use crate::http::params::{ClientIp, JsonBytes, LevelQuery};
use crate::http::problem::ApiError;
use crate::http::state::AppState;
use crate::service::plays::{self, Play, PlayOutcome};

/// The header that makes a play's POST safe to repeat.
const IDEMPOTENCY_KEY: &str = "idempotency-key";

pub async fn play(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    player: MaybePlayer,
    query: LevelQuery,
    headers: HeaderMap,
    JsonBytes {
        value: report,
        bytes,
    }: JsonBytes<PlayReport>,
) -> Result<Response, ApiError> {
    report.refuse_client()?;
    let idempotency_key = idempotency_key(&headers)?;
    crate::http::rate_limit::rate_limit(
        state.limiters.plays.as_deref(),
        client.0,
        "plays from this client",
    )?;
    let (difficulty, seed) = &path;
    let (game, key) = level_address(&state, difficulty, seed, query.game.as_deref())?;
    let play = Play {
        game,
        key,
        client: client.0,
        player: player.0.as_ref().map(|player| player.id.as_str()),
        solved: report.solved,
        moves: &report.moves,
        time_ms: report.time_ms,
        idempotency_key,
        fingerprint: &request_fingerprint(&path, query.game.as_deref(), &bytes),
    };
    Ok(match plays::record(&state.levels, &play).await? {
        PlayOutcome::Stored(answer) => (StatusCode::CREATED, Json(answer)).into_response(),
        PlayOutcome::Replayed(answer) => replayed(answer),
    })
}

/// The first answer to the idempotency key, as it was given.
fn replayed(answer: String) -> Response {
    let mut response = (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        answer,
    )
        .into_response();
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
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
