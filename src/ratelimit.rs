//! Per-client rate limits (governor's keyed GCRA limiter): one instance each for cold
//! generation, `POST /verify` and plays, the paths a single client could otherwise use to
//! monopolise the CPU or the database. Warm levels are never limited.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

/// Clients remembered before those back at a full burst are forgotten: bounds memory
/// under many clients.
const MAX_CLIENTS: usize = 100_000;

pub struct RateLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
}

impl RateLimiter {
    /// `per_minute` sustained, `burst` at once; `None` when `per_minute` is 0.
    pub fn new(per_minute: u32, burst: u32) -> Option<RateLimiter> {
        let per_minute = NonZeroU32::new(per_minute)?;
        let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
        Some(RateLimiter {
            limiter: governor::RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(burst)),
        })
    }

    /// Takes one unit of `client`'s budget, or says how long until one is free.
    pub fn check(&self, client: IpAddr) -> Result<(), Duration> {
        if self.limiter.len() >= MAX_CLIENTS {
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&client)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill_per_client() {
        // 6,000 a minute: one every 10 ms once the burst of 2 is spent.
        let limiter = RateLimiter::new(6000, 2).unwrap();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        assert!(limiter.check(a).is_ok());
        assert!(limiter.check(a).is_ok());
        let wait = limiter.check(a).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_millis(10),
            "{wait:?}"
        );
        assert!(limiter.check(b).is_ok(), "clients are separate");
        std::thread::sleep(Duration::from_millis(15));
        assert!(limiter.check(a).is_ok(), "refilled");
        assert!(RateLimiter::new(0, 5).is_none());
    }
}
