//! The load-test baseline (mounted only with `--bench-routes`): a body of any size from
//! memory, through the same middleware and with the same headers as a warm level, so
//! that a side-by-side load test isolates the level route's own cost.

use std::sync::OnceLock;

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::Response;

use super::levels::immutable;
use super::problem::ApiError;

/// The largest body served; far above any single level.
pub const MAX_BYTES: usize = 1 << 20;
/// A strong ETag of the same length as a level's.
const ETAG: &str = "\"0000000000000000\"";

/// `GET /bench/bytes/{size}`: `size` filler bytes, cacheable like a level.
pub async fn bytes(Path(size): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let size: usize = size
        .parse()
        .ok()
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| {
            ApiError::BadRequest(format!("size must be a byte count up to {MAX_BYTES}"))
        })?;
    Ok(immutable(
        &headers,
        ETAG,
        "application/json",
        filler().slice(..size),
    ))
}

/// Allocated once, on the first request; every response shares it, as warm levels share
/// their cached bytes.
fn filler() -> &'static Bytes {
    static FILLER: OnceLock<Bytes> = OnceLock::new();
    FILLER.get_or_init(|| Bytes::from(vec![b' '; MAX_BYTES]))
}
