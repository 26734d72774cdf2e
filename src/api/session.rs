//! The dashboard's sign-in (docs/security.md): `POST /session` trades a key for a session
//! cookie, `DELETE /session` ends it, `GET /session` says who is signed in.

use axum::Json;
use axum::extract::{FromRequest, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::{
    SECURE_SESSION_COOKIE, SESSION_COOKIE, designer, refuse_cross_site, session_cookies,
};
use super::params::JsonBody;
use super::problem::ApiError;
use crate::auth::{Kind, NewSecret, Person, Presented, Principal, now};
use crate::store::NewSession;

/// Settings of the session cookie.
#[derive(Clone, Debug)]
pub struct SessionSettings {
    /// Adds `Secure`: the browser then sends the cookie over HTTPS only.
    pub secure: bool,
    /// How long a sign-in lasts (cut to the key's own expiry).
    pub lifetime_s: i64,
}

impl SessionSettings {
    /// The cookie's name: `__Host-` prefixed when `Secure` (docs/security.md).
    pub fn cookie_name(&self) -> &'static str {
        if self.secure {
            SECURE_SESSION_COOKIE
        } else {
            SESSION_COOKIE
        }
    }

    /// The scheme of the dashboard's own origin: HTTPS when the cookie is `Secure`.
    pub fn scheme(&self) -> &'static str {
        if self.secure { "https" } else { "http" }
    }

    /// The `Set-Cookie` of `value` lasting `max_age_s` (0 clears it).
    fn cookie(&self, value: &str, max_age_s: i64) -> String {
        format!(
            "{}={value}; Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict{}",
            self.cookie_name(),
            if self.secure { "; Secure" } else { "" }
        )
    }
}

/// The body of `POST /session`.
#[derive(Deserialize, FromRequest)]
#[from_request(via(JsonBody), rejection(ApiError))]
pub struct SignIn {
    /// A designer or admin key.
    key: String,
}

/// `POST /session` with `{"key": "lfk_…"}`: 204 with the session cookie.
pub async fn open(
    State(state): State<AppState>,
    headers: HeaderMap,
    // Read after the cross-site check, which comes first whatever the body.
    body: Result<SignIn, ApiError>,
) -> Result<Response, ApiError> {
    refuse_cross_site(&Method::POST, &headers, &state.session)?;
    let SignIn { key } = body?;
    let refused = |detail: &str| ApiError::Unauthorized {
        detail: detail.into(),
        invalid_token: true,
    };
    let presented = Presented::parse(&key)
        .filter(|p| p.kind == Kind::Key)
        .ok_or_else(|| refused("that is not a key this server issued (keys start with `lfk_`)"))?;
    let Some(Principal::Person(person)) = state.auth.resolve(&presented).await? else {
        return Err(refused("the key is unknown, expired or revoked"));
    };
    let now = now();
    let ends = person
        .ends_at
        .map_or(now + state.session.lifetime_s, |end| {
            end.min(now + state.session.lifetime_s)
        });
    let session = NewSecret::generate(Kind::Session);
    state
        .auth
        .store()
        .create_session(&NewSession {
            id: &session.id,
            secret_hash: &session.hash,
            key_id: &person.key_id,
            created_at: now,
            expires_at: ends,
        })
        .await?;
    let cookie = state.session.cookie(&session.token, ends - now);
    Ok(with_cookie(StatusCode::NO_CONTENT.into_response(), &cookie))
}

/// `GET /session`: the key signed in, and when the sign-in ends.
pub async fn current(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let person = designer(&state, &Method::GET, &headers).await?;
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(describe(&person)),
    )
        .into_response())
}

fn describe(person: &Person) -> Value {
    let ends = person
        .ends_at
        .and_then(|end| jiff::Timestamp::from_second(end).ok())
        .map(|end| end.to_string());
    json!({
        "key": {"id": person.key_id, "name": person.name, "role": person.role.as_str()},
        "expires_at": ends,
    })
}

/// `DELETE /session`: ends the live sessions among the cookie's values, and clears it.
pub async fn close(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    refuse_cross_site(&Method::DELETE, &headers, &state.session)?;
    let sessions = session_cookies(&headers, state.session.cookie_name())
        .filter_map(Presented::parse)
        .filter(|p| p.kind == Kind::Session);
    for presented in sessions {
        // Only the session's own token ends it.
        if state.auth.resolve(&presented).await?.is_some() {
            state.auth.store().delete_session(&presented.id).await?;
        }
        state.auth.forget(&presented).await;
    }
    let cookie = state.session.cookie("", 0);
    Ok(with_cookie(StatusCode::NO_CONTENT.into_response(), &cookie))
}

fn with_cookie(mut response: Response, cookie: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
