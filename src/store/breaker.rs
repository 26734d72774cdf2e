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
    ($( fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*) => {
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

guarded_store! {
    fn level(&self, key: &LevelKey) -> Option<String>;
    fn insert_level(&self, key: &LevelKey, level: &NewLevel<'_>) -> String;
    fn browse(&self, query: &Browse) -> Vec<LevelSummary>;
    fn insert_play(&self, play: &NewPlay<'_>) -> StoredPlay;
    fn idempotent_play(&self, key: &str) -> Option<IdempotentPlay>;
    fn stats(&self, filter: &StatsFilter) -> Vec<GroupStats>;
    fn check_rollups(&self) -> Vec<String>;
    fn rebuild_rollups(&self) -> Vec<String>;
    fn create_player(&self, id: &str, token_hash: &str, now: i64) -> ();
    fn player_token_hash(&self, id: &str) -> Option<String>;
    fn player_ratings(&self, id: &str) -> Vec<PlayerRating>;
    fn erase_player(&self, id: &str) -> ();
    fn create_key(&self, key: &NewKey<'_>) -> ();
    fn keys(&self) -> Vec<KeyRecord>;
    fn live_key_count(&self, now: i64) -> i64;
    fn revoke_key(&self, name_or_id: &str, now: i64) -> Option<KeyRecord>;
    fn key_secret(&self, id: &str) -> Option<StoredSecret>;
    fn touch_key(&self, id: &str, now: i64) -> ();
    fn create_session(&self, session: &NewSession<'_>) -> ();
    fn session_secret(&self, id: &str) -> Option<StoredSecret>;
    fn delete_session(&self, id: &str) -> ();
    fn ping(&self) -> ();
    fn fill_synthetic(&self, levels: u64, plays: u64) -> ();
    fn level_count(&self) -> i64;
}
