//! Credentials at the edge (docs/security.md): who a request is comes from its
//! `Authorization: Bearer` token, or on designer routes from the dashboard's session
//! cookie, never from its body.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::problem::ApiError;
use super::session::{SessionSettings, session_cookies};
use super::state::AppState;
use crate::service::credentials::{Kind, Person, Presented, Principal};

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

/// Whether a browser's request comes from the dashboard's own origin, `scheme://Host`.
/// Each of the browser's signs that it may send must agree: `Origin` names that origin;
/// `Sec-Fetch-Site` says `same-origin` (or `none`, typed by the user); `Referer` is a page
/// of that origin. A request with none of them is no cross-site browser request.
fn same_origin(headers: &HeaderMap, scheme: &str) -> bool {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let ours = |origin: &str| {
        host.is_some_and(|host| {
            origin.split_once("://").is_some_and(|(s, authority)| {
                s.eq_ignore_ascii_case(scheme) && authority.eq_ignore_ascii_case(host)
            })
        })
    };
    let text = |name| {
        headers
            .get(name)
            .map(|v: &axum::http::HeaderValue| v.to_str().ok())
    };
    let origin_ok = text(header::ORIGIN).is_none_or(|o| o.is_some_and(ours));
    let site_ok = text(header::HeaderName::from_static("sec-fetch-site"))
        .is_none_or(|site| matches!(site, Some("same-origin" | "none")));
    let referer_ok = text(header::REFERER).is_none_or(|r| r.map(origin_of).is_some_and(ours));
    origin_ok && site_ok && referer_ok
}

/// The `scheme://authority` a URL starts with.
fn origin_of(url: &str) -> &str {
    let authority_start = url.find("://").map_or(0, |i| i + 3);
    let end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| authority_start + i);
    &url[..end]
}

/// A cookie-authorized change (or a sign-in or sign-out) from another site is refused:
/// the cookie is `SameSite`, and this holds even for a browser that would send it. The
/// dashboard's origin is `https://Host` with `SESSION_COOKIE_SECURE`, else `http://Host`.
pub fn refuse_cross_site(
    method: &Method,
    headers: &HeaderMap,
    session: &SessionSettings,
) -> Result<(), ApiError> {
    let changes = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if changes && !same_origin(headers, session.scheme()) {
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
    let Some(token) = bearer(headers)? else {
        return cookie_person(state, method, headers).await;
    };
    match principal(state, token).await?.1 {
        Principal::Person(person) => Ok(person),
        Principal::Player { .. } => Err(ApiError::Forbidden(
            "a player token cannot use designer routes: they need a designer or admin key".into(),
        )),
    }
}

/// The person of the first live session among the session cookie's values (a planted
/// cookie sent first locks no one out), for a request from the dashboard's own origin.
async fn cookie_person(
    state: &AppState,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Person, ApiError> {
    let mut sent = false;
    for token in session_cookies(headers, state.session.cookie_name()) {
        sent = true;
        let Some(presented) = Presented::parse(token).filter(|p| p.kind == Kind::Session) else {
            continue;
        };
        if let Some(Principal::Person(person)) = state.auth.resolve(&presented).await? {
            refuse_cross_site(method, headers, &state.session)?;
            return Ok(person);
        }
    }
    Err(ApiError::Unauthorized {
        detail: if sent {
            "the session cookie holds no live session: sign in again".into()
        } else {
            "this route needs a designer key: `Authorization: Bearer <key>` \
             (`levelforge keys create`), or the dashboard's sign-in"
                .into()
        },
        invalid_token: sent,
    })
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
    use crate::http::session::{SECURE_SESSION_COOKIE, SESSION_COOKIE};

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn every_value_of_the_session_cookie_is_found_among_others() {
        let h = headers(&[
            (header::COOKIE, "a=1; levelforge_session=lfs_x_y; b=2"),
            (header::COOKIE, "levelforge_session=lfs_z_w"),
        ]);
        let found: Vec<_> = session_cookies(&h, SESSION_COOKIE).collect();
        assert_eq!(found, ["lfs_x_y", "lfs_z_w"]);
        let h = headers(&[(
            header::COOKIE,
            "levelforge_sessionx=1; x_levelforge_session=2",
        )]);
        assert_eq!(session_cookies(&h, SESSION_COOKIE).count(), 0);
        let h = headers(&[(header::COOKIE, "levelforge_session=1")]);
        assert_eq!(session_cookies(&h, SECURE_SESSION_COOKIE).count(), 0);
    }

    #[test]
    fn only_the_own_origin_is_same_origin() {
        let host = (header::HOST, "127.0.0.1:8080");
        let same = |more: &[(header::HeaderName, &str)], scheme| {
            let mut all = vec![host.clone()];
            all.extend_from_slice(more);
            same_origin(&headers(&all), scheme)
        };
        assert!(same(&[], "http"));
        assert!(same(&[(header::ORIGIN, "http://127.0.0.1:8080")], "http"));
        assert!(same(&[(header::ORIGIN, "https://127.0.0.1:8080")], "https"));
        for other in [
            "http://127.0.0.1:9999",
            "https://evil.example",
            "null",
            "https://127.0.0.1:8080",
        ] {
            assert!(!same(&[(header::ORIGIN, other)], "http"), "{other}");
        }
        let fetch_site = header::HeaderName::from_static("sec-fetch-site");
        for (site, ok) in [
            ("same-origin", true),
            ("none", true),
            ("same-site", false),
            ("cross-site", false),
        ] {
            assert_eq!(same(&[(fetch_site.clone(), site)], "http"), ok, "{site}");
        }
        for (page, ok) in [
            ("http://127.0.0.1:8080/", true),
            ("http://127.0.0.1:8080?x", true),
            ("http://127.0.0.1:8080", true),
            ("http://127.0.0.1:8080.evil.example/", false),
            ("https://127.0.0.1:8080/", false),
            ("http://evil.example/http://127.0.0.1:8080/", false),
        ] {
            assert_eq!(same(&[(header::REFERER, page)], "http"), ok, "{page}");
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
