//! Players (docs/security.md): `POST /players` makes an anonymous player and its token;
//! the token then names the player on every play, and on `/players/me`.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, json};

use super::AppState;
use super::auth::Player;
use super::params::ClientIp;
use super::problem::ApiError;
use crate::auth::{Kind, NewSecret, now};
use crate::rating::tenths;

/// `POST /players`: a new player and its token, shown only in this answer.
pub async fn create(State(state): State<AppState>, client: ClientIp) -> Result<Response, ApiError> {
    super::rate_limit(state.players_limiter.as_deref(), client.0, "new players")?;
    let secret = NewSecret::generate(Kind::Player);
    state
        .auth
        .store()
        .create_player(&secret.id, &secret.hash, now())
        .await?;
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "player": secret.id, "token": secret.token })),
    )
        .into_response())
}

/// `GET /players/me`: the player's rating in each game it was rated in.
pub async fn me(State(state): State<AppState>, player: Player) -> Result<Response, ApiError> {
    let ratings = state.auth.store().player_ratings(&player.id).await?;
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
    state.auth.store().erase_player(&player.id).await?;
    state.auth.forget(&player.token).await;
    Ok(StatusCode::NO_CONTENT)
}
