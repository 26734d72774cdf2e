//! Players (docs/security.md): `POST /players` makes an anonymous player and its token;
//! the token then names the player on every play, and on `/players/me`.

use axum::Json;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, json};

use crate::http::auth::Player;
use crate::http::params::{self, ClientIp};
use crate::http::problem::ApiError;
use crate::http::state::AppState;
use crate::service::next::{NextError, Offset};
use crate::service::rating::tenths;

/// `POST /players`: a new player and its token, shown only in this answer.
pub async fn create(State(state): State<AppState>, client: ClientIp) -> Result<Response, ApiError> {
    crate::http::rate_limit::rate_limit(
        state.limiters.players.as_deref(),
        client.0,
        "new players from this client",
    )?;
    let network = state.limiters.players_per_network.as_deref();
    crate::http::rate_limit::rate_limit(
        network,
        client.0,
        "new players from this client's network (its /24 or /64)",
    )?;
    let secret = state.auth.new_player().await?;
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "player": secret.id, "token": secret.token })),
    )
        .into_response())
}

/// `GET /players/me`: the player's rating in each game it was rated in.
pub async fn me(State(state): State<AppState>, player: Player) -> Result<Response, ApiError> {
    let ratings = state.levels.player_ratings(&player.id).await?;
    let ratings: Map<_, _> = ratings
        .into_iter()
        .map(|r| {
            let rating = json!({
                "rating": tenths(r.rating),
                "deviation": tenths(r.deviation),
                "plays": r.plays,
            });
            (r.game, rating)
        })
        .collect();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "player": player.id, "ratings": ratings })),
    )
        .into_response())
}

/// `DELETE /players/me`: erases the player and so revokes its token; its plays stay,
/// anonymous.
pub async fn erase(State(state): State<AppState>, player: Player) -> Result<StatusCode, ApiError> {
    state.auth.erase_player(&player.token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The query of `GET /players/me/next`.
#[derive(Debug, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct NextQuery {
    game: Option<String>,
    /// How far from the player's rating: `easiest` (-600) to `hardest` (+600).
    #[serde(default)]
    difficulty: Offset,
}

/// `GET /players/me/next`: the level that fits the player now, chosen near their rating
/// and never one they have met; the client fetches it from `url`, its immutable address.
pub async fn next(
    State(state): State<AppState>,
    player: Player,
    client: ClientIp,
    query: NextQuery,
) -> Result<Response, ApiError> {
    let game = params::game(query.game.as_deref(), state.default_game)?;
    let (levels, locks) = (&state.levels, &state.next_locks);
    let next =
        crate::service::next::choose(levels, locks, game, &player.id, query.difficulty, client.0)
            .await?;
    let key = next.key;
    let answer = json!({
        "difficulty": key.difficulty,
        "seed": key.seed,
        "url": format!("/levels/{}/{}?game={}", key.difficulty, key.seed, key.game),
        "rating": tenths(next.rating),
        "expected_score": (next.expected_score * 1000.0).round() / 1000.0,
    });
    Ok(([(header::CACHE_CONTROL, "no-store")], Json(answer)).into_response())
}

impl From<NextError> for ApiError {
    fn from(e: NextError) -> Self {
        match e {
            NextError::Store(e) => e.into(),
            NextError::Level(e) => e.into(),
            NextError::NothingFits => ApiError::Unavailable {
                detail: e.to_string(),
                retry_after_s: 1,
            },
        }
    }
}
