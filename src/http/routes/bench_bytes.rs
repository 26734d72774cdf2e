//! The load-test baseline (mounted only with `--bench-routes`): a body of any size from
//! memory, through the same middleware and with the same headers as a warm level, so
//! that a side-by-side load test isolates the level route's own cost.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::Response;

use super::levels::JSON;
use crate::compression::{Variants, respond};
use crate::http::problem::ApiError;

/// The largest body served; far above any single level.
pub const MAX_BYTES: usize = 1 << 20;
/// Sizes whose bodies are kept (a load test asks for one or two).
const KEPT_SIZES: usize = 16;

/// `GET /bench/bytes/{size}`: `size` filler bytes, cacheable like a level.
pub async fn bytes(Path(size): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let size: usize = size
        .parse()
        .ok()
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| {
            ApiError::BadRequest(format!("size must be a byte count up to {MAX_BYTES}"))
        })?;
    Ok(respond(&headers, &body(size), &JSON))
}

/// The body of `size` bytes, kept like a warm level's (with its codings made once).
pub(crate) fn body(size: usize) -> Arc<Variants> {
    static BODIES: OnceLock<Mutex<HashMap<usize, Arc<Variants>>>> = OnceLock::new();
    let mut bodies = BODIES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if bodies.len() >= KEPT_SIZES && !bodies.contains_key(&size) {
        bodies.clear();
    }
    bodies
        .entry(size)
        .or_insert_with(|| Arc::new(Variants::new(filler().slice(..size))))
        .clone()
}

/// Allocated once, on the first request; every response shares it, as warm levels share
/// their cached bytes.
fn filler() -> &'static Bytes {
    static FILLER: OnceLock<Bytes> = OnceLock::new();
    FILLER.get_or_init(|| Bytes::from(vec![b' '; MAX_BYTES]))
}
