//! `GET /`: the designer dashboard, three static files compiled into the binary so it
//! runs offline with no build step. The page reads the same JSON API as everyone else.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../dashboard/index.html");
const SCRIPT: &str = include_str!("../dashboard/app.js");
const STYLE: &str = include_str!("../dashboard/style.css");

/// Only our own files and images; no inline script, no third-party hosts.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'";

pub async fn index(request: HeaderMap) -> Response {
    asset(&request, "text/html; charset=utf-8", INDEX)
}

pub async fn script(request: HeaderMap) -> Response {
    asset(&request, "text/javascript; charset=utf-8", SCRIPT)
}

pub async fn style(request: HeaderMap) -> Response {
    asset(&request, "text/css; charset=utf-8", STYLE)
}

/// A file that changes only with the binary: revalidated by ETag, so an upgraded
/// replica's page is picked up at once.
fn asset(request: &HeaderMap, content_type: &'static str, body: &'static str) -> Response {
    let etag = crate::levels::strong_etag(body.as_bytes());
    let unchanged = request
        .get(header::IF_NONE_MATCH)
        .is_some_and(|tags| tags.as_bytes() == etag.as_bytes());
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::ETAG,
        HeaderValue::from_str(&etag).expect("etag is ASCII"),
    );
    if unchanged {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, body).into_response()
}
