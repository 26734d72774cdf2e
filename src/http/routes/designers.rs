//! Routes for level designers: verification and the games' tier tables.

use axum::Json;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use levelforge_games::{Game, Limits, registry};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::params::{self, ClientIp, JsonBody};
use crate::http::problem::ApiError;
use crate::http::state::AppState;
use crate::service::difficulty_chart;

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct VerifyQuery {
    pub game: Option<String>,
}

/// The solver's report on a posted level. The game is `?game=`, else the body's `game`,
/// else the default game.
pub async fn verify(
    State(state): State<AppState>,
    client: ClientIp,
    query: VerifyQuery,
    JsonBody(level): JsonBody<Value>,
) -> Result<Json<Value>, ApiError> {
    crate::http::rate_limit::rate_limit(
        state.limiters.verify.as_deref(),
        client.0,
        "verifications from this client",
    )?;
    let game = game_of(&state, query.game.as_deref(), &level)?;
    let max_states = state.verify_max_states;
    let report = state
        .levels
        .run_verification(move |stop| game.verify(&level, &Limits { max_states, stop }))
        .await??;
    Ok(Json(report))
}

/// The server's drawing of a posted level document (its `solution` too with
/// `?solution=true`), for an editor. The game is chosen as for `/verify`.
pub async fn preview(
    State(state): State<AppState>,
    query: PreviewQuery,
    JsonBody(level): JsonBody<Value>,
) -> Result<Response, ApiError> {
    let game = game_of(&state, query.game.as_deref(), &level)?;
    let svg = game.preview_svg(&level, query.solution)?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct PreviewQuery {
    pub game: Option<String>,
    #[serde(default)]
    pub solution: bool,
}

/// `?game=`, else the body's `game`, else the default game.
fn game_of(
    state: &AppState,
    named: Option<&str>,
    level: &Value,
) -> Result<&'static dyn Game, ApiError> {
    let body_game = match level.get("game") {
        None => None,
        Some(Value::String(name)) => Some(name.as_str()),
        Some(_) => return Err(ApiError::BadRequest("`game` must be a string".into())),
    };
    params::game(named.or(body_game), state.default_game)
}

pub async fn games(State(state): State<AppState>) -> Json<Value> {
    let games: Vec<Value> = registry::all()
        .iter()
        .map(|g| {
            json!({
                "name": g.name(),
                "title": g.title(),
                "version": g.version(),
                "solution_count_cap": g.solution_count_cap(),
                "key_metrics": g.key_metrics(),
                "palette": g.palette(),
                "tiers": g.tiers(),
            })
        })
        .collect();
    Json(json!({ "default": state.default_game.name(), "games": games }))
}

/// `GET /difficulty.svg?game=`: the game's levels as players rated them against the
/// ratings their figures predicted, beside the simulated players' solve rates from the
/// model's calibration (docs/difficulty.md).
pub async fn difficulty_chart(
    State(state): State<AppState>,
    query: VerifyQuery,
) -> Result<Response, ApiError> {
    let game = params::game(query.game.as_deref(), state.default_game)?;
    let svg = difficulty_chart::players_chart(&state.levels, game).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "private, no-cache"),
        ],
        svg,
    )
        .into_response())
}
