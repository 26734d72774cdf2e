//! Credentials at the edge (docs/security.md): who a request is comes from its
//! `Authorization: Bearer` token, or on designer routes from the dashboard's session
//! cookie, never from its body.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::AppState;
use super::problem::ApiError;
use crate::auth::{Kind, Person, Presented, Principal};

/// The dashboard's session cookie.
pub const SESSION_COOKIE: &str = "levelforge_session";

/// The Bearer token of the `Authorization` header, if there is one; 401 for any other
/// use of the header, so that a mistyped credential is never taken as none.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    match token {
        Some(token) if !token.is_empty() => Ok(Some(token)),
        _ => Err(ApiError::Unauthorized {
            detail: "the Authorization header must be `Bearer <token>`".into(),
            invalid_token: true,
        }),
    }
}

/// The session cookie's value, if sent. (A cookie header is a `;`-separated list of
/// `name=value` pairs; one lookup needs no cookie library.)
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(SESSION_COOKIE)?.strip_prefix('='))
}

/// The principal a presented token names, or 401.
async fn principal(state: &AppState, token: &str) -> Result<(Presented, Principal), ApiError> {
    let refused = |detail: &str| ApiError::Unauthorized {
        detail: detail.into(),
        invalid_token: true,
    };
    let presented = Presented::parse(token)
        .ok_or_else(|| refused("the token is not one this server issued"))?;
    match state.auth.resolve(&presented).await? {
        Some(principal) => Ok((presented, principal)),
        None => Err(refused(
            "the token is unknown, expired or revoked (a revoked key, an ended session or an \
             erased player)",
        )),
    }
}

/// Whether a browser's request comes from the page's own origin: no `Origin` (not a
/// cross-origin browser request), or one naming the `Host` the request was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let authority = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, authority)| authority);
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// A cookie-authorized change (or a sign-in or sign-out) from another site is refused:
/// the cookie is `SameSite`, and this holds even for a browser that would send it.
pub(super) fn refuse_cross_site(method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    let changes = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if changes && !same_origin(headers) {
        return Err(ApiError::Forbidden(
            "a request signed in by the dashboard's cookie must come from the dashboard's own \
             origin"
                .into(),
        ));
    }
    Ok(())
}

/// The person behind a designer request: a key or session as Bearer, else the session
/// cookie; 401 without one, 403 for a player token.
pub async fn designer(
    state: &AppState,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Person, ApiError> {
    let (token, via_cookie) = match bearer(headers)? {
        Some(token) => (token, false),
        None => match session_cookie(headers) {
            Some(token) => (token, true),
            None => {
                return Err(ApiError::Unauthorized {
                    detail: "this route needs a designer key: `Authorization: Bearer <key>` \
                             (`levelforge keys create`), or the dashboard's sign-in"
                        .into(),
                    invalid_token: false,
                });
            }
        },
    };
    let (presented, principal) = principal(state, token).await?;
    if via_cookie {
        if presented.kind != Kind::Session {
            return Err(ApiError::Unauthorized {
                detail: "the session cookie holds no session".into(),
                invalid_token: true,
            });
        }
        refuse_cross_site(method, headers)?;
    }
    match principal {
        Principal::Person(person) => Ok(person),
        Principal::Player { .. } => Err(ApiError::Forbidden(
            "a player token cannot use designer routes: they need a designer or admin key".into(),
        )),
    }
}

/// Middleware of the designer routes: the request goes on only with a designer or admin
/// credential, which it then carries as an extension.
pub async fn require_designer(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let person = designer(&state, request.method(), request.headers()).await?;
    request.extensions_mut().insert(person);
    Ok(next.run(request).await)
}

/// The player a request's token names. `None`: no credential, an anonymous request.
pub struct MaybePlayer(pub Option<Player>);

/// A player, by their token.
pub struct Player {
    pub id: String,
    pub token: Presented,
}

impl FromRequestParts<AppState> for MaybePlayer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(token) = bearer(&parts.headers)? else {
            return Ok(MaybePlayer(None));
        };
        match principal(state, token).await? {
            (token, Principal::Player { id }) => Ok(MaybePlayer(Some(Player { id, token }))),
            (_, Principal::Person(_)) => Err(ApiError::Forbidden(
                "a key names a person, not a player: send a player token (`POST /players`)".into(),
            )),
        }
    }
}

impl FromRequestParts<AppState> for Player {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        MaybePlayer::from_request_parts(parts, state)
            .await?
            .0
            .ok_or_else(|| ApiError::Unauthorized {
                detail: "this route needs a player token: `Authorization: Bearer <token>`, \
                         from `POST /players`"
                    .into(),
                invalid_token: false,
            })
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let h = headers(&[(header::COOKIE, "a=1; levelforge_session=lfs_x_y; b=2")]);
        assert_eq!(session_cookie(&h), Some("lfs_x_y"));
        let h = headers(&[(header::COOKIE, "levelforge_sessionx=1")]);
        assert_eq!(session_cookie(&h), None);
    }

    #[test]
    fn only_the_own_origin_is_same_origin() {
        let host = (header::HOST, "127.0.0.1:8080");
        assert!(same_origin(&headers(std::slice::from_ref(&host))));
        assert!(same_origin(&headers(&[
            host.clone(),
            (header::ORIGIN, "http://127.0.0.1:8080")
        ])));
        for other in ["http://127.0.0.1:9999", "https://evil.example", "null"] {
            assert!(!same_origin(&headers(&[
                host.clone(),
                (header::ORIGIN, other)
            ])));
        }
    }

    #[test]
    fn a_malformed_authorization_header_is_refused_not_ignored() {
        for bad in ["Basic abc", "Bearer", "Bearer   ", "token"] {
            assert!(
                bearer(&headers(&[(header::AUTHORIZATION, bad)])).is_err(),
                "{bad}"
            );
        }
        let good = headers(&[(header::AUTHORIZATION, "bearer lfp_1_2")]);
        assert_eq!(bearer(&good).unwrap(), Some("lfp_1_2"));
    }
}
