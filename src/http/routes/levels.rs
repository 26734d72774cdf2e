//! Routes for mobile clients: levels, previews, checks and plays.

use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::extract::{FromRequest, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use levelforge_games::{Game, Limits};
use serde::Deserialize;
use serde_json::Value;

use crate::compression::{self, HeaderTemplates, Variants};
use crate::http::params::{self, ClientIp, JsonBody, LevelQuery};
use crate::http::problem::ApiError;
use crate::http::state::AppState;
use crate::service::levels::ServedLevel;
use crate::service::store::LevelKey;

pub(crate) type LevelPath = Path<(String, String)>;

/// The game and key a level's address names: `{difficulty}/{seed}` and `?game=`. The one
/// reading of the address, for these routes and the warm path (which takes only the plain
/// spellings and leaves the rest to the router).
pub(crate) fn level_address(
    state: &AppState,
    difficulty: &str,
    seed: &str,
    game: Option<&str>,
) -> Result<(&'static dyn Game, LevelKey), ApiError> {
    params::level_key(difficulty, seed, game, state.default_game)
}

/// Resolves the key and fetches (or generates) its level.
async fn served(
    state: &AppState,
    (difficulty, seed): &(String, String),
    query: &LevelQuery,
    client: ClientIp,
) -> Result<(&'static dyn Game, Arc<ServedLevel>), ApiError> {
    let (game, key) = level_address(state, difficulty, seed, query.game.as_deref())?;
    let level = state.levels.get_for(game, key, client.0).await?;
    Ok((game, level))
}

pub async fn level(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (_, level) = served(&state, &path, &query, client).await?;
    Ok(level_answer(&headers, &level))
}

/// The answer with a level's bytes, for the handler and the warm path alike: the
/// client's coding, its ETag, 304 when it matches, cacheable forever.
pub(crate) fn level_answer(request: &HeaderMap, level: &ServedLevel) -> Response {
    compression::respond(request, &level.body, &JSON)
}

pub async fn preview(
    State(state): State<AppState>,
    Path(path): LevelPath,
    client: ClientIp,
    query: LevelQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (game, level) = served(&state, &path, &query, client).await?;
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
    let (game, level) = served(&state, &path, &query, client).await?;
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
    crate::http::rate_limit::rate_limit(
        state.limiters.hints.as_deref(),
        client.0,
        "hints from this client",
    )?;
    let (game, level) = served(&state, &path, &query, client).await?;
    let max_states = state.verify_max_states;
    let hint = state
        .levels
        .run_verification(move |stop| {
            game.hint(level.document(), &moves, &Limits { max_states, stop })
        })
        .await??;
    Ok(Json(hint).into_response())
}

/// The headers of levels and previews, cacheable forever (`compression::respond`).
pub(crate) static JSON: LazyLock<HeaderTemplates> = LazyLock::new(|| forever("application/json"));
pub(crate) static SVG: LazyLock<HeaderTemplates> = LazyLock::new(|| forever("image/svg+xml"));

fn forever(content_type: &'static str) -> HeaderTemplates {
    HeaderTemplates::new(content_type, "public, max-age=31536000, immutable")
}
