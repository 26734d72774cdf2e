//! Which browser origins may call the game routes.

use std::time::Duration;

/// tower-http's CORS layer for `origins`; `None` when there are none.
pub fn cors_layer(origins: &[String]) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{HeaderName, HeaderValue, Method, header};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let origins: Vec<HeaderValue> = origins
        .iter()
        .filter(|origin| !origin.is_empty())
        .filter_map(|origin| HeaderValue::from_str(origin).ok())
        .collect();
    if origins.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::IF_NONE_MATCH,
                HeaderName::from_static("idempotency-key"),
            ])
            .expose_headers([
                header::ETAG,
                header::RETRY_AFTER,
                header::LOCATION,
                HeaderName::from_static("idempotent-replayed"),
            ])
            .max_age(Duration::from_secs(3600)),
    )
}
