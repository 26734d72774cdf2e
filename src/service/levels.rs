//! The level pipeline between HTTP and the games: memory cache → store → bounded
//! generation. Knows nothing of any one game's rules.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use levelforge_games::{Game, GenerateError, Stop, Summary};
use moka::future::Cache;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::compression::Variants;
use crate::service::ratelimit::RateLimiter;
use crate::service::store::{
    Browse, GroupStats, IdempotentPlay, LevelKey, LevelSummary, NewLevel, NewPlay, PlayerRating,
    StatsFilter, Store, StoreError, StoredPlay,
};

/// A level as served: its stored bytes in every coding, and its previews once drawn.
pub struct ServedLevel {
    pub body: Variants,
    /// False when the database could not take it; such a level is not kept in memory.
    pub stored: bool,
    /// What storing an unstored level later needs: its game version and summary.
    unstored: Option<(u32, Summary)>,
    document: OnceLock<Value>,
    /// The SVG previews, without and with the solution, drawn on first request.
    previews: [OnceLock<Variants>; 2],
}

impl ServedLevel {
    fn new(json: String, stored: bool) -> ServedLevel {
        ServedLevel {
            body: Variants::new(json),
            stored,
            unstored: None,
            document: OnceLock::new(),
            previews: Default::default(),
        }
    }

    /// The stored JSON bytes.
    pub fn json(&self) -> &Bytes {
        self.body.bytes()
    }

    /// The parsed level, for replays and previews.
    pub fn document(&self) -> &Value {
        self.document
            .get_or_init(|| serde_json::from_slice(self.json()).expect("stored levels are JSON"))
    }

    /// The preview (with or without the solution), drawn by `draw` the first time only.
    pub fn preview<E>(
        &self,
        solution: bool,
        draw: impl FnOnce(&Value) -> Result<String, E>,
    ) -> Result<&Variants, E> {
        let cell = &self.previews[usize::from(solution)];
        if let Some(preview) = cell.get() {
            return Ok(preview);
        }
        let drawn = Variants::new(draw(self.document())?);
        Ok(cell.get_or_init(|| drawn))
    }
}

/// A pack: `count` consecutive seeds from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackKey {
    pub first: LevelKey,
    pub count: u64,
}

/// Keys one pack request fetches or generates at once; generation itself also waits for
/// the service's shared slots, so a pack cannot take the whole pool.
pub const PACK_PARALLEL: usize = 4;

/// Bytes of packs kept in memory (a pack of 100 expert levels is about 75 KB).
const PACK_CACHE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Clone, Debug, thiserror::Error)]
pub enum LevelError {
    #[error("every generation slot is busy; try again shortly")]
    Overloaded,
    #[error("generation ran past its time budget of {0:?}")]
    OverBudget(Duration),
    #[error("generation failed: {0}")]
    Failed(String),
    #[error("too many new levels asked for by this client; next one in {0:?}")]
    RateLimited(Duration),
    /// A hand-made (`custom`) key that holds no level: such levels are published, never
    /// generated.
    #[error("no hand-made level has this key: hand-made levels come from collections")]
    NotFound,
}

/// How CPU-heavy work (generation, verification) is bounded.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Jobs running at once.
    pub concurrency: usize,
    /// How long a job may wait for a slot before the request gets 503.
    pub queue_wait: Duration,
    /// Wall-clock budget of one job.
    pub budget: Duration,
}

#[derive(Clone)]
pub struct LevelService {
    store: Arc<dyn Store>,
    /// Hashed with foldhash: every warm request hashes its key, and SipHash (the default)
    /// was a visible share of a warm answer; foldhash's seeds are random per process.
    cache: Cache<LevelKey, Arc<ServedLevel>, foldhash::fast::RandomState>,
    /// Packs as served, so that their codings are made once too.
    packs: Cache<PackKey, Arc<Variants>>,
    slots: Arc<Semaphore>,
    /// Verifications' own pool, so that they never hold every generation slot.
    verify_slots: Arc<Semaphore>,
    bounds: Bounds,
    /// Per-client limit on cold generations; `None`: unlimited.
    limiter: Option<Arc<RateLimiter>>,
}

impl LevelService {
    pub fn new(store: Arc<dyn Store>, bounds: Bounds, cache_capacity: u64) -> LevelService {
        LevelService {
            store,
            cache: Cache::builder()
                .max_capacity(cache_capacity)
                .build_with_hasher(foldhash::fast::RandomState::default()),
            packs: Cache::builder()
                .max_capacity(PACK_CACHE_BYTES)
                // Room for the compressed forms too, which come later and add about half.
                .weigher(|_, pack: &Arc<Variants>| {
                    u32::try_from(pack.bytes().len() * 3 / 2).unwrap_or(u32::MAX)
                })
                .build(),
            slots: Arc::new(Semaphore::new(bounds.concurrency)),
            verify_slots: Arc::new(Semaphore::new(1)),
            bounds,
            limiter: None,
        }
    }

    /// Limits cold generations per client.
    pub fn with_rate_limit(mut self, limiter: Option<RateLimiter>) -> LevelService {
        self.limiter = limiter.map(Arc::new);
        self
    }

    /// Verifications running at once (1 unless set).
    pub fn with_verify_concurrency(mut self, concurrency: usize) -> LevelService {
        self.verify_slots = Arc::new(Semaphore::new(concurrency.max(1)));
        self
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.store.ping().await
    }

    /// One page of stored levels' summaries.
    pub async fn browse(&self, query: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        self.store.browse(query).await
    }

    /// The generation and play statistics of each (game, tier).
    pub async fn stats(&self, filter: &StatsFilter) -> Result<Vec<GroupStats>, StoreError> {
        self.store.stats(filter).await
    }

    /// A player's rating in each game they were rated in.
    pub async fn player_ratings(&self, player: &str) -> Result<Vec<PlayerRating>, StoreError> {
        self.store.player_ratings(player).await
    }

    /// The play stored under an idempotency key, if any.
    pub async fn idempotent_play(&self, key: &str) -> Result<Option<IdempotentPlay>, StoreError> {
        self.store.idempotent_play(key).await
    }

    /// Stores a play, rating it when it has a player.
    pub async fn insert_play(&self, play: &NewPlay<'_>) -> Result<StoredPlay, StoreError> {
        self.store.insert_play(play).await
    }

    /// The JSON array of a pack's levels, from memory when this pack was served before;
    /// each cold key counts against `client`'s cold-generation budget. Kept only when
    /// every level in it is stored.
    pub async fn pack(
        &self,
        game: &'static dyn Game,
        key: PackKey,
        client: Option<IpAddr>,
    ) -> Result<Arc<Variants>, LevelError> {
        if let Some(pack) = self.packs.get(&key).await {
            return Ok(pack);
        }
        let levels = self.fetch_pack(game, key, client).await?;
        let mut body =
            Vec::with_capacity(levels.iter().map(|l| l.json().len() + 1).sum::<usize>() + 2);
        body.push(b'[');
        for (i, level) in levels.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(level.json());
        }
        body.push(b']');
        let pack = Arc::new(Variants::new(body));
        if levels.iter().all(|l| l.stored) {
            self.packs.insert(key, pack.clone()).await;
        }
        Ok(pack)
    }

    /// Fetches (or generates) a pack's keys, at most [`PACK_PARALLEL`] at once, in seed
    /// order. The first failure ends the pack: keys already done stay stored.
    async fn fetch_pack(
        &self,
        game: &'static dyn Game,
        PackKey { first, count }: PackKey,
        client: Option<IpAddr>,
    ) -> Result<Vec<Arc<ServedLevel>>, LevelError> {
        let mut done: Vec<Option<Arc<ServedLevel>>> = vec![None; count as usize];
        let mut running = JoinSet::new();
        let mut next = 0u64;
        while next < count || !running.is_empty() {
            while next < count && running.len() < PACK_PARALLEL {
                let (levels, index) = (self.clone(), next);
                let key = LevelKey {
                    seed: first.seed + index,
                    ..first
                };
                running.spawn(async move { (index, levels.get_for(game, key, client).await) });
                next += 1;
            }
            let Some(joined) = running.join_next().await else {
                break;
            };
            let (index, level) =
                joined.map_err(|e| LevelError::Failed(format!("pack task: {e}")))?;
            done[index as usize] = Some(level?);
        }
        Ok(done.into_iter().flatten().collect())
    }

    /// The level of a key: from memory, else from the store, else generated (once, however
    /// many requests ask at the same time) and stored.
    pub async fn get(
        &self,
        game: &'static dyn Game,
        key: LevelKey,
    ) -> Result<Arc<ServedLevel>, LevelError> {
        self.get_for(game, key, None).await
    }

    /// The stored level of a key if it is in memory; never loads, and counts nothing.
    pub async fn cached(&self, key: &LevelKey) -> Option<Arc<ServedLevel>> {
        self.cache.get(key).await.filter(|level| level.stored)
    }

    /// [`get`](Self::get) on behalf of `client`, whose cold generations are rate limited.
    pub async fn get_for(
        &self,
        game: &'static dyn Game,
        key: LevelKey,
        client: Option<IpAddr>,
    ) -> Result<Arc<ServedLevel>, LevelError> {
        // moka polls the loader of one caller only; the others wait for its result.
        let loaded = AtomicBool::new(false);
        let load = async {
            loaded.store(true, Ordering::Relaxed);
            self.load(game, key, client).await
        };
        let level = self.cache.try_get_with(key, load).await;
        crate::metrics::cache(!loaded.load(Ordering::Relaxed));
        let level = level.map_err(|e: Arc<LevelError>| (*e).clone())?;
        if !level.stored {
            // Serve it, but ask the database again next time.
            self.cache.invalidate(&key).await;
        }
        Ok(level)
    }

    async fn load(
        &self,
        game: &'static dyn Game,
        key: LevelKey,
        client: Option<IpAddr>,
    ) -> Result<Arc<ServedLevel>, LevelError> {
        match self.store.level(&key).await {
            Ok(Some(json)) => return Ok(Arc::new(ServedLevel::new(json, true))),
            Ok(None) => {}
            Err(error) => {
                crate::metrics::db_error("level_read");
                tracing::warn!(%error, "store read failed; generating without it");
            }
        }
        if !key.difficulty.is_generated() {
            return Err(LevelError::NotFound);
        }
        self.admit(client)?;
        let this = self.clone();
        // Detached: a client that hangs up does not throw the work away.
        let task = tokio::spawn(async move { this.generate_and_store(game, key).await });
        task.await
            .map_err(|e| LevelError::Failed(format!("generation task: {e}")))?
    }

    async fn generate_and_store(
        &self,
        game: &'static dyn Game,
        key: LevelKey,
    ) -> Result<Arc<ServedLevel>, LevelError> {
        let started = Instant::now();
        let generated = self
            .run_bounded(move |stop| game.generate(key.difficulty, key.seed, stop))
            .await
            .and_then(|result| {
                result.map_err(|e| match e {
                    GenerateError::Stopped { .. } => LevelError::OverBudget(self.bounds.budget),
                    other => {
                        tracing::error!(error = %other, game = key.game, difficulty = %key.difficulty, seed = key.seed, "no level for key");
                        LevelError::Failed(other.to_string())
                    }
                })
            });
        record_generation(
            key,
            generated.as_ref().map(|g| &g.summary),
            started.elapsed(),
        );
        let generated = generated?;
        tracing::info!(
            game = key.game, difficulty = %key.difficulty, seed = key.seed,
            attempts = generated.summary.attempts, par = generated.summary.par,
            ms = started.elapsed().as_millis() as u64, "generated level"
        );
        let new = NewLevel {
            version: game.version(),
            json: &generated.json,
            summary: &generated.summary,
        };
        match self.store.insert_level(&key, &new).await {
            Ok(stored) => Ok(Arc::new(ServedLevel::new(stored, true))),
            Err(error) => {
                crate::metrics::db_error("level_write");
                tracing::warn!(%error, "store write failed; serving the level unstored");
                let mut level = ServedLevel::new(generated.json, false);
                level.unstored = Some((game.version(), generated.summary));
                Ok(Arc::new(level))
            }
        }
    }

    /// Stores a level that was served unstored (the database was down), so that a play of
    /// it can refer to it; a no-op for a stored level.
    pub async fn ensure_stored(
        &self,
        key: &LevelKey,
        level: &ServedLevel,
    ) -> Result<(), StoreError> {
        let Some((version, summary)) = &level.unstored else {
            return Ok(());
        };
        let json = std::str::from_utf8(level.json()).expect("levels are generated as text");
        let new = NewLevel {
            version: *version,
            json,
            summary,
        };
        self.store
            .insert_level(key, &new)
            .await
            .inspect_err(|_| crate::metrics::db_error("level_write"))?;
        Ok(())
    }

    /// Takes one of the client's cold-generation tokens.
    fn admit(&self, client: Option<IpAddr>) -> Result<(), LevelError> {
        let (Some(limiter), Some(client)) = (&self.limiter, client) else {
            return Ok(());
        };
        limiter.check(client).map_err(|wait| {
            crate::metrics::refused("rate_limited");
            LevelError::RateLimited(wait)
        })
    }

    /// Runs CPU-heavy work off the async runtime, at most `concurrency` at once, with the
    /// wall-clock budget as the job's stop request.
    pub async fn run_bounded<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Stop) -> T + Send + 'static,
    ) -> Result<T, LevelError> {
        self.run_in(&self.slots, job).await
    }

    /// [`run_bounded`](Self::run_bounded) in the verifications' own pool.
    pub async fn run_verification<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Stop) -> T + Send + 'static,
    ) -> Result<T, LevelError> {
        self.run_in(&self.verify_slots, job).await
    }

    async fn run_in<T: Send + 'static>(
        &self,
        slots: &Arc<Semaphore>,
        job: impl FnOnce(&Stop) -> T + Send + 'static,
    ) -> Result<T, LevelError> {
        let waiting = Instant::now();
        let permit =
            tokio::time::timeout(self.bounds.queue_wait, slots.clone().acquire_owned()).await;
        crate::metrics::slot_wait(waiting.elapsed(), permit.is_ok());
        let permit = permit
            .map_err(|_| LevelError::Overloaded)?
            .expect("the semaphore is never closed");
        let stop = Stop::at(Instant::now() + self.bounds.budget);
        let handle = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job(&stop)
        });
        handle
            .await
            .map_err(|e| LevelError::Failed(format!("worker: {e}")))
    }
}

/// Counts a generation by outcome, and the work an accepted one took.
fn record_generation(
    key: LevelKey,
    result: Result<&levelforge_games::Summary, &LevelError>,
    took: Duration,
) {
    use crate::metrics::Outcome;
    let tier = key.difficulty.as_str();
    let outcome = match result {
        Ok(summary) => {
            crate::metrics::generation_work(
                key.game,
                tier,
                u64::from(summary.attempts),
                summary.states,
            );
            Outcome::Accepted
        }
        Err(LevelError::Overloaded) => Outcome::Overloaded,
        Err(LevelError::OverBudget(_)) => Outcome::OverBudget,
        // Refused before any generation starts; never reaches here.
        Err(LevelError::Failed(_) | LevelError::RateLimited(_) | LevelError::NotFound) => {
            Outcome::Failed
        }
    };
    crate::metrics::generation(key.game, tier, outcome, took);
}
