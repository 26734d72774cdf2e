//! Parsing of path, query and body input into the service's types, with clear errors.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use levelforge_games::{Difficulty, Game, registry};
use serde::Deserialize;
use serde_json::Value;

use super::problem::ApiError;
use crate::store::LevelKey;

/// The client a request counts against for rate limiting: the peer address, or with
/// `TRUST_FORWARDED` the last `X-Forwarded-For` entry (the one our own proxy appended;
/// earlier entries are whatever the client claimed).
pub struct ClientIp(pub Option<IpAddr>);

impl FromRequestParts<super::AppState> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &super::AppState,
    ) -> Result<Self, Self::Rejection> {
        let forwarded = state
            .trust_forwarded
            .then(|| parts.headers.get("x-forwarded-for"))
            .flatten()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|ip| ip.trim().parse().ok());
        let peer = || {
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip())
        };
        Ok(ClientIp(forwarded.or_else(peer)))
    }
}

/// Query parameters shared by the level routes.
#[derive(Debug, Default, Deserialize)]
pub struct LevelQuery {
    pub game: Option<String>,
    /// Preview only: draw the solution.
    #[serde(default)]
    pub solution: bool,
}

pub fn game(name: Option<&str>, default: &'static dyn Game) -> Result<&'static dyn Game, ApiError> {
    match name {
        None => Ok(default),
        Some(name) => registry::find(name).ok_or_else(|| {
            ApiError::NotFound(format!(
                "unknown game `{name}`: the games are {}",
                registry::names().join(", ")
            ))
        }),
    }
}

pub fn difficulty(text: &str) -> Result<Difficulty, ApiError> {
    text.parse().map_err(ApiError::NotFound)
}

pub fn seed(text: &str) -> Result<u64, ApiError> {
    text.parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "seed `{text}` is not a decimal number from 0 to 18446744073709551615"
        ))
    })
}

pub fn level_key(
    difficulty_text: &str,
    seed_text: &str,
    game_name: Option<&str>,
    default: &'static dyn Game,
) -> Result<(&'static dyn Game, LevelKey), ApiError> {
    let game = game(game_name, default)?;
    let key = LevelKey {
        game: game.name(),
        difficulty: difficulty(difficulty_text)?,
        seed: seed(seed_text)?,
    };
    Ok((game, key))
}

/// A JSON object body.
pub fn json_object(body: &Bytes) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::BadRequest(
            "the body must be a JSON object".into(),
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_map_to_the_statuses_of_the_contract() {
        let fruit = registry::find("fruit").unwrap();
        assert!(matches!(seed("-1"), Err(ApiError::BadRequest(_))));
        assert!(matches!(
            seed("18446744073709551616"),
            Err(ApiError::BadRequest(_))
        ));
        assert_eq!(seed("18446744073709551615").unwrap(), u64::MAX);
        assert!(matches!(difficulty("insane"), Err(ApiError::NotFound(_))));
        assert!(matches!(
            game(Some("chess"), fruit),
            Err(ApiError::NotFound(_))
        ));
        assert!(matches!(
            json_object(&Bytes::from_static(b"[1]")),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            json_object(&Bytes::from_static(b"{")),
            Err(ApiError::BadRequest(_))
        ));
    }
}
