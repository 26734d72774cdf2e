//! `GET /`: the designer dashboard, four static files compiled into the binary so it
//! runs offline with no build step. The page reads the same JSON API as everyone else.

use std::sync::LazyLock;

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

use crate::compression::{self, HeaderTemplates, Variants};

const INDEX: &str = include_str!("../dashboard/index.html");
const SCRIPT: &str = include_str!("../dashboard/app.js");
const LEVEL_SCRIPT: &str = include_str!("../dashboard/level.js");
const STYLE: &str = include_str!("../dashboard/style.css");

/// Only our own files and images; no inline script, no third-party hosts, never framed.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
     form-action 'self'";

pub async fn index(request: HeaderMap) -> Response {
    static BODY: LazyLock<Variants> = LazyLock::new(|| Variants::new(INDEX));
    static HTML: LazyLock<HeaderTemplates> = LazyLock::new(|| no_cache("text/html; charset=utf-8"));
    asset(&request, &HTML, &BODY)
}

pub async fn script(request: HeaderMap) -> Response {
    static BODY: LazyLock<Variants> = LazyLock::new(|| Variants::new(SCRIPT));
    static JAVASCRIPT: LazyLock<HeaderTemplates> =
        LazyLock::new(|| no_cache("text/javascript; charset=utf-8"));
    asset(&request, &JAVASCRIPT, &BODY)
}

/// The level dialog: view, play and edit.
pub async fn level_script(request: HeaderMap) -> Response {
    static BODY: LazyLock<Variants> = LazyLock::new(|| Variants::new(LEVEL_SCRIPT));
    static JAVASCRIPT: LazyLock<HeaderTemplates> =
        LazyLock::new(|| no_cache("text/javascript; charset=utf-8"));
    asset(&request, &JAVASCRIPT, &BODY)
}

pub async fn style(request: HeaderMap) -> Response {
    static BODY: LazyLock<Variants> = LazyLock::new(|| Variants::new(STYLE));
    static CSS: LazyLock<HeaderTemplates> = LazyLock::new(|| no_cache("text/css; charset=utf-8"));
    asset(&request, &CSS, &BODY)
}

fn no_cache(content_type: &'static str) -> HeaderTemplates {
    HeaderTemplates::new(content_type, "no-cache")
}

/// A file that changes only with the binary: revalidated by ETag, so an upgraded
/// replica's page is picked up at once.
fn asset(request: &HeaderMap, templates: &HeaderTemplates, body: &Variants) -> Response {
    let mut response = compression::respond(request, body, templates);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}
