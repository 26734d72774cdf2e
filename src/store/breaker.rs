//! Failing fast while the database is gone. Without this, every request waits the pool's
//! whole acquire timeout before it learns what the last one learned already. Once a call
//! finds the database unavailable, [`Guarded`] answers [`StoreError::Down`] at once, and
//! lets one call through per [`PROBE_EVERY`] to find out whether it is back.
//! (A circuit breaker; kept as our own code because it is twenty lines around one
//! timestamp, where the crates offer whole policy frameworks.)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use levelforge_store::*;

/// While the database is down, one call per this period is let through as a probe.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// A store that fails fast while its database is down.
pub struct Guarded {
    inner: Arc<dyn Store>,
    /// Milliseconds after `epoch` of the last call let through while down; 0: up.
    down_probe_ms: AtomicU64,
    epoch: Instant,
}

impl Guarded {
    pub fn new(inner: Arc<dyn Store>) -> Guarded {
        Guarded {
            inner,
            down_probe_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    fn now_ms(&self) -> u64 {
        // +1: a reading of 0 means up.
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// Whether a call may go to the database: always while up; while down, the first
    /// call of each probe period.
    fn admit(&self) -> bool {
        let last = self.down_probe_ms.load(Ordering::Acquire);
        if last == 0 {
            return true;
        }
        let now = self.now_ms();
        now.saturating_sub(last) >= PROBE_EVERY.as_millis() as u64
            && self
                .down_probe_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
    }

    /// Runs `call` unless the database is known to be down, and learns from its outcome.
    async fn guard<T>(
        &self,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        if !self.admit() {
            return Err(StoreError::Down);
        }
        let result = call.await;
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

/// Each method of [`Store`] that reaches the database, through [`Guarded::guard`].
macro_rules! guarded_store {
    (; $(
        fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $inherent:ident;
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
                Arc::new(Guarded::new(self.inner.without_rollups()))
            }
        }
    };
}

levelforge_store::with_store_methods!(guarded_store!());
