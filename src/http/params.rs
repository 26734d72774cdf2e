//! Parsing of path, query and body input into the service's types, with clear errors.

use std::convert::Infallible;
use std::fmt::Display;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use levelforge_games::{Difficulty, Game, registry};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::problem::ApiError;
use crate::service::store::LevelKey;

/// The client a request counts against for rate limiting: the peer address, or with
/// `TRUST_FORWARDED` the last `X-Forwarded-For` entry over all the header's lines (the one
/// our own proxy appended; earlier entries and lines are whatever the client claimed).
pub struct ClientIp(pub Option<IpAddr>);

/// The right-most entry of `X-Forwarded-For`, its lines joined in order: the last line's
/// last entry. `None` when that one is not an address (never an earlier, client-written one).
fn last_forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let last_line = headers.get_all("x-forwarded-for").iter().next_back()?;
    let last_entry = last_line.to_str().ok()?.rsplit(',').next()?;
    last_entry.trim().parse().ok()
}

impl FromRequestParts<super::state::AppState> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &super::state::AppState,
    ) -> Result<Self, Self::Rejection> {
        let forwarded = state
            .trust_forwarded
            .then(|| last_forwarded(&parts.headers))
            .flatten();
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
#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct LevelQuery {
    pub game: Option<String>,
    /// Preview only: draw the solution.
    #[serde(default)]
    pub solution: bool,
    /// Preview only: draw the position these moves reach (letters, or JSON for games
    /// whose moves are lists).
    pub moves: Option<String>,
    /// Check only: add the position the moves reach as a level document.
    #[serde(default)]
    pub position: bool,
}

/// The `moves` of a query string: JSON when it parses as JSON (a list of links or
/// pieces), else the letters as they are.
pub fn query_moves(moves: &str) -> Value {
    serde_json::from_str(moves).unwrap_or_else(|_| Value::String(moves.to_string()))
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

/// The unsigned integer types that input spells in decimal.
pub trait Unsigned: FromStr + Display {
    const MAX: Self;
}

impl Unsigned for u32 {
    const MAX: u32 = u32::MAX;
}

impl Unsigned for u64 {
    const MAX: u64 = u64::MAX;
}

/// An unsigned integer in its one canonical spelling (digits only, no leading zero), so
/// that a cache in front never holds one answer under many URLs (`+1`, `01`, `%2B1`).
pub fn canonical<T: Unsigned>(text: &str) -> Result<T, String> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && !(text.len() > 1 && text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten().ok_or_else(|| {
        format!(
            "`{text}` is not a decimal number from 0 to {} written without sign or leading zeros",
            T::MAX
        )
    })
}

/// An optional integer query parameter, spelled canonically (`#[serde(deserialize_with)]`
/// with `#[serde(default)]`); the query extractor's error names the parameter.
pub fn canonical_param<'de, D: Deserializer<'de>, T: Unsigned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let text = String::deserialize(deserializer)?;
    canonical(&text).map(Some).map_err(serde::de::Error::custom)
}

pub fn seed(text: &str) -> Result<u64, ApiError> {
    canonical(text).map_err(|e| ApiError::BadRequest(format!("seed {e}")))
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

/// A JSON object body of shape `T`: 415 without a JSON `Content-Type`; 400 for a body
/// that is not a JSON object, repeats a key at any depth, or does not fit `T` (the detail
/// names the field). Rejects as problem+json, as the extractors derived from it do.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let JsonBytes { value, .. } = JsonBytes::from_request(request, state).await?;
        Ok(JsonBody(value))
    }
}

/// A [`JsonBody`] with the bytes it was parsed from, for a route that keeps them.
pub struct JsonBytes<T> {
    pub value: T,
    pub bytes: Bytes,
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBytes<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        require_json(request.headers())?;
        let bytes = Bytes::from_request(request, state).await?;
        let value = serde_path_to_error::deserialize(json_object(&bytes)?)
            .map_err(|e| ApiError::BadRequest(format!("bad body: {e}")))?;
        Ok(JsonBytes { value, bytes })
    }
}

/// 415 unless the `Content-Type` is JSON: `application/json` or `application/*+json`.
fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let media_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    let is_json = media_type.is_some_and(|t| {
        t == "application/json" || (t.starts_with("application/") && t.ends_with("+json"))
    });
    is_json.then_some(()).ok_or(ApiError::UnsupportedMediaType)
}

/// A JSON object; duplicate keys at any depth are refused (serde_json keeps the last).
fn json_object(body: &Bytes) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice::<NoDuplicateKeys>(body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not JSON: {e}")))?
        .0;
    if !value.is_object() {
        return Err(ApiError::BadRequest(
            "the body must be a JSON object".into(),
        ));
    }
    Ok(value)
}

/// A JSON value whose objects have no repeated key. Hand-written: serde_json has no such
/// option for an untyped `Value`, and no well-kept crate adds it.
struct NoDuplicateKeys(Value);

impl<'de> Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(Value::Null))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(Value::String(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys(Value::String(v)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(NoDuplicateKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(NoDuplicateKeys(Value::Array(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
            }
            let NoDuplicateKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(NoDuplicateKeys(Value::Object(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_the_last_entry_of_the_last_forwarded_line() {
        let mut headers = HeaderMap::new();
        assert_eq!(last_forwarded(&headers), None);
        for line in ["192.0.2.1, 192.0.2.2", "198.51.100.7"] {
            headers.append("x-forwarded-for", line.parse().unwrap());
        }
        assert_eq!(
            last_forwarded(&headers),
            Some("198.51.100.7".parse().unwrap())
        );
        // A last entry that is not an address names no one; never an earlier entry.
        headers.append("x-forwarded-for", "192.0.2.1, unknown".parse().unwrap());
        assert_eq!(last_forwarded(&headers), None);
    }

    #[test]
    fn integers_have_one_spelling() {
        assert_eq!(seed("18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(seed("0").unwrap(), 0);
        for spelling in [
            "-1",
            "18446744073709551616",
            "+1",
            "007",
            "00",
            " 1",
            "1 ",
            "",
        ] {
            assert!(
                matches!(seed(spelling), Err(ApiError::BadRequest(_))),
                "{spelling}"
            );
        }
        assert_eq!(canonical::<u32>("4294967295"), Ok(u32::MAX));
        assert_eq!(
            canonical::<u32>("4294967296"),
            Err(
                "`4294967296` is not a decimal number from 0 to 4294967295 written without \
                 sign or leading zeros"
                    .into()
            )
        );
        for spelling in ["+5", "05", "5.0", "0x5", "5e0", "\u{0665}"] {
            assert!(canonical::<u32>(spelling).is_err(), "{spelling}");
        }
    }

    #[test]
    fn names_map_to_the_statuses_of_the_contract() {
        let fruit = registry::find("fruit").unwrap();
        assert!(matches!(difficulty("insane"), Err(ApiError::NotFound(_))));
        assert!(matches!(
            game(Some("chess"), fruit),
            Err(ApiError::NotFound(_))
        ));
    }

    /// A body as `JsonBody<T>` takes it, with `content_type` if any.
    async fn extract<T: DeserializeOwned>(
        content_type: Option<&str>,
        body: &'static str,
    ) -> Result<T, ApiError> {
        let mut request = Request::new(axum::body::Body::from(body));
        if let Some(content_type) = content_type {
            let value = content_type.parse().unwrap();
            request.headers_mut().insert(header::CONTENT_TYPE, value);
        }
        JsonBody::from_request(request, &())
            .await
            .map(|JsonBody(t)| t)
    }

    fn detail<T: std::fmt::Debug>(result: Result<T, ApiError>) -> String {
        match result {
            Err(ApiError::BadRequest(detail)) => detail,
            other => panic!("not a 400: {other:?}"),
        }
    }

    const JSON: Option<&str> = Some("application/json");

    #[tokio::test]
    async fn json_bodies_keep_their_media_types_and_refusals() {
        assert!(matches!(
            extract::<Value>(None, "{}").await,
            Err(ApiError::UnsupportedMediaType)
        ));
        for (media_type, ok) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("application/problem+json", true),
            ("text/plain", false),
            ("application/x-www-form-urlencoded", false),
        ] {
            let extracted = extract::<Value>(Some(media_type), "{}").await;
            assert_eq!(extracted.is_ok(), ok, "{media_type}");
        }
        let nested = r#"{"a": [1.5, null, "x", {"b": true}]}"#;
        assert_eq!(
            extract::<Value>(JSON, nested).await.unwrap(),
            serde_json::json!({"a": [1.5, null, "x", {"b": true}]})
        );
        let repeated = r#"{"a": 1, "b": {"c": 1, "c": 2}}"#;
        assert!(detail(extract::<Value>(JSON, repeated).await).contains("duplicate key `c`"));
        assert!(detail(extract::<Value>(JSON, "{").await).starts_with("the body is not JSON"));
        assert_eq!(
            detail(extract::<Value>(JSON, "[1]").await),
            "the body must be a JSON object"
        );
    }

    #[derive(Debug, Deserialize)]
    struct Claim {
        solved: bool,
    }

    #[tokio::test]
    async fn a_typed_body_names_the_field_that_does_not_fit() {
        let extra = r#"{"solved": true, "other": 1}"#;
        assert!(extract::<Claim>(JSON, extra).await.unwrap().solved);
        assert_eq!(
            detail(extract::<Claim>(JSON, "{}").await),
            "bad body: missing field `solved`"
        );
        assert_eq!(
            detail(extract::<Claim>(JSON, r#"{"solved": "yes"}"#).await),
            r#"bad body: solved: invalid type: string "yes", expected a boolean"#
        );
    }
}
