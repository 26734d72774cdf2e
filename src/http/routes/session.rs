//! The dashboard's sign-in (docs/security.md): `POST /session` trades a key for a session
//! cookie, `DELETE /session` ends it, `GET /session` says who is signed in.

use axum::Json;
use axum::extract::{FromRequest, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::auth::{designer, refuse_cross_site};
use crate::http::params::JsonBody;
use crate::http::problem::ApiError;
use crate::http::session::session_cookies;
use crate::http::state::AppState;
use crate::service::credentials::{Kind, Person, Presented, Principal};

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
    let (session, lasts_s) = state
        .auth
        .open_session(&person, state.session.lifetime_s)
        .await?;
    let cookie = state.session.cookie(&session.token, lasts_s);
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
    let tokens = session_cookies(&headers, state.session.cookie_name());
    state.auth.end_sessions(tokens).await?;
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
