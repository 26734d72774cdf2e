//! Routes for mobile clients: levels, previews, checks and plays.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use levelforge_games::Status;
use serde_json::{Value, json};

use super::AppState;
use super::params::{self, ClientIp, LevelQuery};
use super::problem::ApiError;
use crate::levels::{ServedLevel, strong_etag};
use crate::rating::{Rating, tenths};
use crate::store::NewPlay;

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
    query: Result<Query<LevelQuery>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = query?.0;
    let (_, _, level) = served(&state, &path, &query, client).await?;
    Ok(immutable(
        &headers,
        &level.etag,
        "application/json",
        level.json.clone(),
    ))
}

pub async fn preview(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: Result<Query<LevelQuery>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = query?.0;
    let (game, _, level) = served(&state, &path, &query, client).await?;
    let svg = game.preview_svg(level.document(), query.solution)?;
    let etag = strong_etag(svg.as_bytes());
    Ok(immutable(
        &headers,
        &etag,
        "image/svg+xml",
        Bytes::from(svg),
    ))
}

pub async fn check(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: Result<Query<LevelQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let query = query?.0;
    let body = params::json_object(&body?)?;
    let moves = body
        .get("moves")
        .ok_or_else(|| ApiError::BadRequest("the body needs `moves`".into()))?;
    let (game, _, level) = served(&state, &path, &query, client).await?;
    let outcome = game.check(level.document(), moves)?;
    Ok(Json(outcome.json).into_response())
}

pub async fn play(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: Result<Query<LevelQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let query = query?.0;
    let body = params::json_object(&body?)?;
    let report = PlayReport::parse(&body)?;
    let (game, key, level) = served(&state, &path, &query, client).await?;
    let outcome = game.check(level.document(), report.moves)?;
    let moves_text = report.moves.to_string();
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
            client: report.client,
        })
        .await
        .inspect_err(|_| crate::metrics::db_error("play_write"))?;
    let mut answer = outcome.json;
    answer["id"] = json!(stored.id);
    answer["rated"] = json!(stored.ratings.is_some());
    if let Some(ratings) = stored.ratings {
        answer["player_rating"] = rating_change(ratings.player_before, ratings.after.player);
        answer["level_rating"] = rating_change(ratings.level_before, ratings.after.level);
    }
    answer["solved_claimed"] = json!(report.solved);
    answer["verified"] = json!(report.solved == (outcome.status == Status::Won));
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// A rating's move in a play, rounded to tenths for people.
fn rating_change(before: Rating, after: Rating) -> Value {
    json!({
        "before": tenths(before.rating),
        "after": tenths(after.rating),
        "deviation": tenths(after.deviation),
    })
}

/// The body of `POST .../plays`.
struct PlayReport<'a> {
    solved: bool,
    moves: &'a Value,
    time_ms: Option<u64>,
    client: Option<&'a str>,
}

impl<'a> PlayReport<'a> {
    fn parse(body: &'a Value) -> Result<PlayReport<'a>, ApiError> {
        let bad = |m: &str| ApiError::BadRequest(m.to_string());
        let solved = body
            .get("solved")
            .ok_or_else(|| bad("the body needs `solved` (true or false)"))?
            .as_bool()
            .ok_or_else(|| bad("`solved` must be true or false"))?;
        let moves = body
            .get("moves")
            .ok_or_else(|| bad("the body needs `moves`"))?;
        let time_ms = match body.get("time_ms") {
            None | Some(Value::Null) => None,
            Some(t) => Some(
                t.as_u64()
                    .ok_or_else(|| bad("`time_ms` must be a whole number of milliseconds"))?,
            ),
        };
        let client = match body.get("client") {
            None | Some(Value::Null) => None,
            Some(c) => Some(
                c.as_str()
                    .filter(|c| c.len() <= 128)
                    .ok_or_else(|| bad("`client` must be a string of at most 128 bytes"))?,
            ),
        };
        Ok(PlayReport {
            solved,
            moves,
            time_ms,
            client,
        })
    }
}

/// A cacheable-forever response, or 304 when the client already has these bytes.
pub(super) fn immutable(
    request: &HeaderMap,
    etag: &str,
    content_type: &'static str,
    body: Bytes,
) -> Response {
    let not_modified = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(str::trim)
                .any(|t| t == "*" || t.trim_start_matches("W/") == etag)
        });
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type)], body).into_response()
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    headers.insert(
        header::ETAG,
        HeaderValue::from_str(etag).expect("etag is ASCII"),
    );
    response
}
