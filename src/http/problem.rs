//! The HTTP error type: every error leaves as `application/problem+json`.

use axum::Json;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use levelforge_games::GameError;
use serde_json::json;

use crate::service::levels::LevelError;
use crate::service::plays::PlayError;
use crate::service::store::StoreError;

#[derive(Debug)]
pub enum ApiError {
    BadRequest(String),
    /// No credential, or one the server does not know (unknown, expired, revoked): the
    /// answer carries `WWW-Authenticate: Bearer`.
    Unauthorized {
        detail: String,
        /// The presented credential was refused (RFC 6750 `invalid_token`).
        invalid_token: bool,
    },
    /// A known credential that may not do this.
    Forbidden(String),
    NotFound(String),
    MethodNotAllowed,
    PayloadTooLarge(String),
    /// The body did not arrive within the body read timeout.
    RequestTimeout,
    /// A POST body not declared as JSON.
    UnsupportedMediaType,
    /// A well-formed level or move list that breaks a rule; `rule` is its stable id.
    Unprocessable {
        detail: String,
        rule: &'static str,
    },
    /// Overload, a budget run out, or the database down for a write.
    Unavailable {
        detail: String,
        retry_after_s: u32,
    },
    /// A client over its rate limit.
    TooManyRequests {
        detail: String,
        retry_after_s: u32,
    },
    Internal(String),
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request"),
            ApiError::Unauthorized { .. } => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            ApiError::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed"),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large"),
            ApiError::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "request-timeout"),
            ApiError::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type")
            }
            ApiError::Unprocessable { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "rule-violation"),
            ApiError::Unavailable { .. } => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ApiError::TooManyRequests { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate-limited"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }

    fn detail(&self) -> String {
        match self {
            ApiError::BadRequest(d)
            | ApiError::Forbidden(d)
            | ApiError::Unauthorized { detail: d, .. }
            | ApiError::NotFound(d)
            | ApiError::PayloadTooLarge(d)
            | ApiError::Internal(d) => d.clone(),
            ApiError::MethodNotAllowed => "this route does not take that method".into(),
            ApiError::RequestTimeout => "the request body did not arrive in time".into(),
            ApiError::UnsupportedMediaType => {
                "the body must be sent with `Content-Type: application/json`".into()
            }
            ApiError::Unprocessable { detail, .. }
            | ApiError::Unavailable { detail, .. }
            | ApiError::TooManyRequests { detail, .. } => detail.clone(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, slug) = self.parts();
        if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::error!(detail = %self.detail(), "internal error");
        }
        let mut body = json!({
            "type": format!("urn:levelforge:problem:{slug}"),
            "title": status.canonical_reason().unwrap_or("Error"),
            "status": status.as_u16(),
            "detail": self.detail(),
        });
        if let ApiError::Unprocessable { rule, .. } = &self {
            body["rule"] = json!(rule);
        }
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let ApiError::Unavailable { retry_after_s, .. }
        | ApiError::TooManyRequests { retry_after_s, .. } = self
        {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s));
        }
        if let ApiError::Unauthorized { invalid_token, .. } = self {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(if invalid_token {
                    "Bearer realm=\"levelforge\", error=\"invalid_token\""
                } else {
                    "Bearer realm=\"levelforge\""
                }),
            );
        }
        response
    }
}

impl From<LevelError> for ApiError {
    fn from(e: LevelError) -> Self {
        match e {
            LevelError::Overloaded => ApiError::Unavailable {
                detail: e.to_string(),
                retry_after_s: 1,
            },
            LevelError::OverBudget(_) => ApiError::Unavailable {
                detail: e.to_string(),
                retry_after_s: 5,
            },
            LevelError::Failed(_) => ApiError::Internal(e.to_string()),
            LevelError::NotFound => ApiError::NotFound(e.to_string()),
            LevelError::RateLimited(wait) => ApiError::TooManyRequests {
                detail: e.to_string(),
                // Whole seconds, rounded up: a client retrying then gets a token.
                retry_after_s: u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX),
            },
        }
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        match e {
            GameError::Malformed(detail) => ApiError::BadRequest(detail),
            GameError::Rule(rule) => ApiError::Unprocessable {
                detail: rule.message,
                rule: rule.rule,
            },
            GameError::GaveUp(exhausted) => ApiError::Unavailable {
                detail: format!("the search {exhausted}; try again later"),
                retry_after_s: 5,
            },
            GameError::Unsupported(detail) => ApiError::Internal(detail.into()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            // The driver's text says nothing a client can use, and may say too much.
            StoreError::Unavailable(error) => {
                tracing::warn!(%error, "database unavailable");
                ApiError::Unavailable {
                    detail: "the database is unavailable; try again shortly".into(),
                    retry_after_s: 2,
                }
            }
            StoreError::Down => ApiError::Unavailable {
                detail: "the database is unavailable; try again shortly".into(),
                retry_after_s: 1,
            },
            StoreError::PlayerGone => ApiError::Unauthorized {
                detail: "the token's player was erased (`DELETE /players/me`)".into(),
                invalid_token: true,
            },
            // The client cannot fix it and the SQL is ours: log it, answer plainly.
            StoreError::Query(_)
            | StoreError::Migration(_)
            | StoreError::IdempotencyKeyTaken
            | StoreError::Conflict(_) => {
                tracing::error!(error = %e, "database error");
                ApiError::Internal("the database rejected the server's query".into())
            }
        }
    }
}

impl From<PlayError> for ApiError {
    fn from(e: PlayError) -> Self {
        match e {
            PlayError::MovesAfterEnd => ApiError::Unprocessable {
                detail: e.to_string(),
                rule: PLAY_MOVES_AFTER_END,
            },
            PlayError::KeyReused => ApiError::Unprocessable {
                detail: e.to_string(),
                rule: PLAY_IDEMPOTENCY_KEY_REUSED,
            },
            PlayError::KeyVanished => ApiError::Internal(e.to_string()),
            PlayError::Level(e) => e.into(),
            PlayError::Game(e) => e.into(),
            PlayError::Store(e) => e.into(),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> Self {
        ApiError::BadRequest(format!("bad query string: {}", e.body_text()))
    }
}

impl From<BytesRejection> for ApiError {
    fn from(e: BytesRejection) -> Self {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge(format!(
                "the body is larger than the limit: {}",
                e.body_text()
            ))
        } else {
            ApiError::BadRequest(e.body_text())
        }
    }
}

/// Rules of a play that the service itself (not a game) enforces: 422 names them.
pub const PLAY_MOVES_AFTER_END: &str = "play.moves_after_end";
pub const PLAY_IDEMPOTENCY_KEY_REUSED: &str = "play.idempotency_key_reused";
/// Rules of a collection's publication that the service enforces: an entry the solver
/// could not prove within the verify budget, a key with no level, a hash collision.
pub const COLLECTION_ENTRY_UNPROVEN: &str = "collection.entry_unproven";
pub const COLLECTION_ENTRY_NO_LEVEL: &str = "collection.entry_no_level";
pub const COLLECTION_ENTRY_COLLISION: &str = "collection.entry_collision";
/// Every rule id the service adds to the games' own, for the contract (the games' shared
/// [`levelforge_games::game::UNSOLVABLE`] among them).
pub const SERVICE_RULES: [&str; 6] = [
    PLAY_MOVES_AFTER_END,
    PLAY_IDEMPOTENCY_KEY_REUSED,
    COLLECTION_ENTRY_UNPROVEN,
    COLLECTION_ENTRY_NO_LEVEL,
    COLLECTION_ENTRY_COLLISION,
    levelforge_games::game::UNSOLVABLE,
];
