//! Per-client rate limits (governor's keyed GCRA limiter): one instance each for cold
//! generation, `POST /verify`, plays, hints and new players, the paths a single client
//! could otherwise use to monopolise the CPU or the database; new players are limited per
//! network as well. Warm levels are never limited.
//!
//! A client is an IPv4 address, or an IPv6 /64 (what one subscriber gets whole, so that
//! its 2^64 addresses count once). The table of clients is bounded: see [`RateLimiter::check`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::Quota;
use governor::clock::{Clock, DefaultClock, Reference};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;

/// Clients remembered at most: bounds memory under many clients.
const MAX_CLIENTS: usize = 100_000;

/// How often a full table is swept for clients back at a full burst (a sweep reads all).
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// The key every client shares while the table is full: no client's key is `::`.
const OVERFLOW: IpAddr = IpAddr::V6(Ipv6Addr::UNSPECIFIED);

/// The client an address belongs to: an IPv4 address (IPv4-mapped ones included) as it
/// is, an IPv6 address by its /64.
pub fn client_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & (!0u128 << 64))),
    }
}

/// The network an address belongs to: its IPv4 /24, or its IPv6 /64.
pub fn network_of(ip: IpAddr) -> IpAddr {
    match client_of(ip) {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from_bits(v4.to_bits() & !0xff)),
        v6 => v6,
    }
}

/// governor's keyed limiter on clock `C`.
type Keyed<C> = governor::RateLimiter<
    IpAddr,
    DefaultKeyedStateStore<IpAddr>,
    C,
    NoOpMiddleware<<C as Clock>::Instant>,
>;

/// A per-client limiter. Its clock is the system's, except in tests, which move a fake
/// one so that what they check never depends on how fast a busy machine runs them.
pub struct RateLimiter<C: Clock = DefaultClock> {
    limiter: Keyed<C>,
    /// What an address is limited as: [`client_of`] or [`network_of`].
    key_of: fn(IpAddr) -> IpAddr,
    capacity: usize,
    /// Milliseconds after `epoch` of the last sweep of a full table.
    swept_ms: AtomicU64,
    epoch: C::Instant,
}

impl RateLimiter {
    /// `per_minute` sustained, `burst` at once, per client; `None` when `per_minute` is 0.
    pub fn new(per_minute: u32, burst: u32) -> Option<RateLimiter> {
        RateLimiter::keyed(
            per_minute,
            burst,
            client_of,
            MAX_CLIENTS,
            DefaultClock::default(),
        )
    }

    /// The same per network ([`network_of`]): /24 for IPv4, /64 for IPv6.
    pub fn per_network(per_minute: u32, burst: u32) -> Option<RateLimiter> {
        RateLimiter::keyed(
            per_minute,
            burst,
            network_of,
            MAX_CLIENTS,
            DefaultClock::default(),
        )
    }
}

impl<C: Clock> RateLimiter<C> {
    fn keyed(
        per_minute: u32,
        burst: u32,
        key_of: fn(IpAddr) -> IpAddr,
        capacity: usize,
        clock: C,
    ) -> Option<RateLimiter<C>> {
        let per_minute = NonZeroU32::new(per_minute)?;
        let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::per_minute(per_minute).allow_burst(burst);
        let epoch = clock.now();
        Some(RateLimiter {
            limiter: governor::RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock),
            key_of,
            capacity,
            swept_ms: AtomicU64::new(0),
            epoch,
        })
    }

    fn now(&self) -> C::Instant {
        self.limiter.clock().now()
    }

    /// Takes one unit of `client`'s budget, or says how long until one is free. While the
    /// table holds `capacity` clients that are all still short of a full burst (a flood
    /// of new addresses), clients share one budget until a sweep frees places: the table
    /// never grows past the capacity, at the cost of limiting everyone together meanwhile.
    pub fn check(&self, client: IpAddr) -> Result<(), Duration> {
        let mut key = (self.key_of)(client);
        if self.limiter.len() >= self.capacity {
            self.sweep();
            if self.limiter.len() >= self.capacity {
                key = OVERFLOW;
            }
        }
        self.limiter
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(self.now()))
    }

    /// Forgets the clients back at a full burst, at most once per [`SWEEP_EVERY`].
    fn sweep(&self) {
        // Counted from one period before `epoch`, so that the first sweep is due at once.
        let elapsed = Duration::from(self.now().duration_since(self.epoch));
        let now = elapsed.as_millis() as u64 + SWEEP_EVERY.as_millis() as u64;
        let last = self.swept_ms.load(Ordering::Acquire);
        let due = now.saturating_sub(last) >= SWEEP_EVERY.as_millis() as u64;
        if due
            && self
                .swept_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            self.limiter.retain_recent();
        }
    }
}

/// The per-client limits of the routes that cost the most; `None`: unlimited.
#[derive(Clone, Default)]
pub struct Limiters {
    /// `POST /verify`.
    pub verify: Option<Arc<RateLimiter>>,
    /// `POST .../plays`.
    pub plays: Option<Arc<RateLimiter>>,
    /// `POST .../hint`.
    pub hints: Option<Arc<RateLimiter>>,
    /// `POST /players`.
    pub players: Option<Arc<RateLimiter>>,
    /// New players per network (IPv4 /24, IPv6 /64), beside the per-client limit.
    pub players_per_network: Option<Arc<RateLimiter>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// A limiter per client on a clock that moves only when the test advances it.
    fn on_fake_clock(
        per_minute: u32,
        burst: u32,
        capacity: usize,
    ) -> (RateLimiter<FakeRelativeClock>, FakeRelativeClock) {
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::keyed(per_minute, burst, client_of, capacity, clock.clone());
        (limiter.unwrap(), clock)
    }

    #[test]
    fn burst_then_refill_per_client() {
        // 6,000 a minute: one every 10 ms once the burst of 2 is spent.
        let (limiter, clock) = on_fake_clock(6000, 2, MAX_CLIENTS);
        let (a, b) = (ip("10.0.0.1"), ip("10.0.0.2"));
        assert!(limiter.check(a).is_ok());
        assert!(limiter.check(a).is_ok());
        assert_eq!(limiter.check(a), Err(Duration::from_millis(10)));
        assert!(limiter.check(b).is_ok(), "clients are separate");
        clock.advance(Duration::from_millis(9));
        assert_eq!(limiter.check(a), Err(Duration::from_millis(1)), "not yet");
        clock.advance(Duration::from_millis(1));
        assert!(limiter.check(a).is_ok(), "refilled");
        assert!(limiter.check(a).is_err(), "by one, not by the whole burst");
        assert!(RateLimiter::new(0, 5).is_none());
    }

    #[test]
    fn clients_and_networks_of_addresses() {
        assert_eq!(client_of(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(client_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(client_of(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        assert_eq!(network_of(ip("192.0.2.7")), ip("192.0.2.0"));
        assert_eq!(network_of(ip("::ffff:192.0.2.7")), ip("192.0.2.0"));
        assert_eq!(network_of(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
    }

    #[test]
    fn one_ipv6_64_is_one_client() {
        let (limiter, _clock) = on_fake_clock(1, 1, MAX_CLIENTS);
        assert!(limiter.check(ip("2001:db8::1")).is_ok());
        assert!(limiter.check(ip("2001:db8::2")).is_err(), "the same /64");
        assert!(limiter.check(ip("2001:db8:0:1::1")).is_ok(), "another /64");
    }

    #[test]
    fn a_flood_of_new_clients_never_grows_the_table_past_its_capacity() {
        // One a minute, and the clock stands still: no client is back at a full burst.
        let (limiter, clock) = on_fake_clock(1, 1, 100);
        for i in 0..1000u32 {
            let _ = limiter.check(IpAddr::from(Ipv4Addr::from_bits(0x0a00_0000 + i)));
        }
        assert!(limiter.limiter.len() <= 101, "{}", limiter.limiter.len());
        // Past the capacity, new clients share the one overflow budget, spent already.
        let late = IpAddr::from([192, 0, 2, 1]);
        assert!(limiter.check(late).is_err());
        // Two minutes on, every client is past a full burst: the next sweep forgets them.
        clock.advance(Duration::from_secs(120));
        assert!(limiter.check(late).is_ok(), "a place of its own again");
        assert_eq!(limiter.limiter.len(), 1);
    }
}
