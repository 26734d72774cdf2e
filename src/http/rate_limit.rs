//! Per-client rate limits as answers: 429 with `Retry-After`.

use super::problem::ApiError;

/// Takes one unit of `client`'s budget on `limiter` (none: unlimited), or 429.
pub fn rate_limit(
    limiter: Option<&crate::service::ratelimit::RateLimiter>,
    client: Option<std::net::IpAddr>,
    what: &str,
) -> Result<(), ApiError> {
    let (Some(limiter), Some(client)) = (limiter, client) else {
        return Ok(());
    };
    limiter.check(client).map_err(|wait| {
        crate::metrics::refused("rate_limited");
        ApiError::TooManyRequests {
            detail: format!("too many {what}; next one in {wait:?}"),
            retry_after_s: u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX),
        }
    })
}
