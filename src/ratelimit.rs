//! Per-client token buckets for cold generation: the expensive path a single client could
//! otherwise monopolise with random seeds. Warm levels are never limited.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets kept before idle (full) ones are dropped: bounds memory under many clients.
const MAX_CLIENTS: usize = 100_000;

struct Bucket {
    tokens: f64,
    at: Instant,
}

pub struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl RateLimiter {
    /// `per_minute` cold generations sustained, `burst` at once; `None` when `per_minute` is 0.
    pub fn new(per_minute: u32, burst: u32) -> Option<RateLimiter> {
        (per_minute > 0).then(|| RateLimiter {
            per_second: f64::from(per_minute) / 60.0,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        })
    }

    /// Takes a token for `client`, or says how long until one is free.
    pub fn check(&self, client: IpAddr) -> Result<(), Duration> {
        self.check_at(client, Instant::now())
    }

    fn check_at(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        // A poisoned lock only means another thread panicked mid-update; the map is
        // still usable.
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_CLIENTS {
            self.forget_idle(&mut buckets, now);
        }
        let bucket = buckets.entry(client).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let refilled = self.refill(bucket, now);
        if refilled >= 1.0 {
            bucket.tokens = refilled - 1.0;
            bucket.at = now;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - refilled) / self.per_second))
        }
    }

    fn refill(&self, bucket: &Bucket, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        (bucket.tokens + elapsed * self.per_second).min(self.burst)
    }

    fn forget_idle(&self, buckets: &mut HashMap<IpAddr, Bucket>, now: Instant) {
        buckets.retain(|_, bucket| self.refill(bucket, now) < self.burst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill_per_client() {
        let limiter = RateLimiter::new(60, 2).unwrap();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t = Instant::now();
        assert!(limiter.check_at(a, t).is_ok());
        assert!(limiter.check_at(a, t).is_ok());
        let wait = limiter.check_at(a, t).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert!(limiter.check_at(b, t).is_ok(), "clients are separate");
        assert!(limiter.check_at(a, t + Duration::from_secs(1)).is_ok());
        assert!(RateLimiter::new(0, 5).is_none());
    }
}
