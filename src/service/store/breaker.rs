//! Failing fast while the database is gone. Without this, every request waits the pool's
//! whole acquire timeout before it learns what the last one learned already. Once a call
//! finds the database unavailable, [`Guarded`] answers [`StoreError::Down`] at once, and
//! lets one call through per [`PROBE_EVERY`] to find out whether it is back.
//! (A circuit breaker; kept as our own code because it is twenty lines around one
//! timestamp, where the crates offer whole policy frameworks.)
//!
//! The pool itself retries a refused connection until its acquire timeout (3 s): so that
//! the first call of an outage, and each probe, learn at once that the database's port
//! refuses, a call that has not answered within [`PORT_CHECK_AFTER`] (a probe: at once) is
//! raced against plain TCP connects to that port, one every [`PORT_CHECK_EVERY`] at most
//! ([`PortCheck`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use levelforge_store::*;

/// While the database is down, one call per this period is let through as a probe.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// How long a call may run before the database's port is checked beside it.
const PORT_CHECK_AFTER: Duration = Duration::from_millis(100);

/// A store that fails fast while its database is down.
pub struct Guarded {
    inner: Arc<dyn Store>,
    /// Milliseconds after `epoch` of the last call let through while down; 0: up.
    down_probe_ms: AtomicU64,
    epoch: Instant,
    /// The database's TCP address, for a backend that has one.
    port: Option<PortCheck>,
}

impl Guarded {
    pub fn new(inner: Arc<dyn Store>) -> Guarded {
        Guarded {
            inner,
            down_probe_ms: AtomicU64::new(0),
            epoch: Instant::now(),
            port: None,
        }
    }

    /// Also fails a call as soon as `address`, the database's, refuses connections.
    pub fn checking_port(mut self, address: Option<(String, u16)>) -> Guarded {
        self.port = address.map(PortCheck::new);
        self
    }

    fn now_ms(&self) -> u64 {
        // +1: a reading of 0 means up.
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// Whether a call may go to the database, and how soon to check its port beside it:
    /// while up, every call, after [`PORT_CHECK_AFTER`]; while down, the first call of
    /// each probe period, at once.
    fn admit(&self) -> Option<Duration> {
        let last = self.down_probe_ms.load(Ordering::Acquire);
        if last == 0 {
            return Some(PORT_CHECK_AFTER);
        }
        let now = self.now_ms();
        let probe = now.saturating_sub(last) >= PROBE_EVERY.as_millis() as u64
            && self
                .down_probe_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        probe.then_some(Duration::ZERO)
    }

    /// Runs `call` unless the database is known to be down, and learns from its outcome.
    async fn guard<T>(
        &self,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let Some(check_after) = self.admit() else {
            return Err(StoreError::Down);
        };
        let result = match &self.port {
            None => call.await,
            Some(port) => tokio::select! {
                result = call => result,
                refused = port.refused_after(check_after) => Err(refused),
            },
        };
        match &result {
            Err(StoreError::Unavailable(_)) => {
                let now = self.now_ms();
                // Keep an earlier probe time: concurrent failures do not delay the next probe.
                let _ = self.down_probe_ms.compare_exchange(
                    0,
                    now,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
            _ => self.down_probe_ms.store(0, Ordering::Release),
        }
        result
    }
}

/// How often a pending call checks the port again, and how long a port that answered is
/// trusted without a new connect (so slow calls under load cost few connects).
const PORT_CHECK_EVERY: Duration = Duration::from_millis(500);

/// A TCP connect to the database's port, to tell "refused at once" from "slow".
struct PortCheck {
    address: (String, u16),
    /// Milliseconds after `epoch` when a connect last succeeded; 0: never.
    answered_ms: AtomicU64,
    epoch: Instant,
}

impl PortCheck {
    fn new(address: (String, u16)) -> PortCheck {
        PortCheck {
            address,
            answered_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    /// Resolves, after `wait`, once connecting to the port is refused; never while it
    /// answers, or fails to in other ways (the pool's own timeout decides then).
    async fn refused_after(&self, wait: Duration) -> StoreError {
        tokio::time::sleep(wait).await;
        loop {
            if let Some(refused) = self.refused().await {
                return StoreError::Unavailable(sqlx::Error::Io(refused));
            }
            tokio::time::sleep(PORT_CHECK_EVERY).await;
        }
    }

    /// The refusal, if a connect to the port is refused now; no connect when the port
    /// answered within [`PORT_CHECK_EVERY`].
    async fn refused(&self) -> Option<std::io::Error> {
        let now = self.epoch.elapsed().as_millis() as u64 + 1;
        let answered = self.answered_ms.load(Ordering::Relaxed);
        if answered != 0 && now - answered < PORT_CHECK_EVERY.as_millis() as u64 {
            return None;
        }
        let (host, port) = &self.address;
        let connect = tokio::net::TcpStream::connect((host.as_str(), *port));
        match tokio::time::timeout(PORT_CHECK_EVERY, connect).await {
            Ok(Err(error)) if error.kind() == std::io::ErrorKind::ConnectionRefused => Some(error),
            Ok(Ok(_)) => {
                self.answered_ms.store(now, Ordering::Relaxed);
                None
            }
            _ => None,
        }
    }
}

/// Each method of [`Store`] that reaches the database, through [`Guarded::guard`].
macro_rules! guarded_store {
    (; $(
        fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
    )*) => {
        #[async_trait]
        impl Store for Guarded {
            $(
                async fn $name(&self $(, $arg: $ty)*) -> Result<$ret, StoreError> {
                    self.guard(self.inner.$name($($arg),*)).await
                }
            )*

            async fn close(&self) {
                self.inner.close().await
            }

            fn without_rollups(&self) -> Arc<dyn Store> {
                let address = self.port.as_ref().map(|port| port.address.clone());
                Arc::new(Guarded::new(self.inner.without_rollups()).checking_port(address))
            }
        }
    };
}

levelforge_store::with_store_methods!(guarded_store!());
