//! `GET /players/me/next`: the level that fits a player, chosen near their rating plus
//! the offset they ask for (lichess's puzzle difficulty steps), never one they have
//! played or been served (docs/difficulty.md).
//!
//! Stored levels come first, the nearest to the target within a window around it; their
//! ratings are their priors until players move them. Past the widest window, fresh
//! seeds of the tier whose predicted ratings lie nearest the target are generated and
//! stored as any level is, so the client still fetches the level by its immutable URL.

use std::net::IpAddr;

use levelforge_games::{Difficulty, Game, LevelRng};
use levelforge_store::rating::Rating;
use levelforge_store::{LevelKey, NextQuery, StoreError};
use serde::Deserialize;

use crate::service::levels::{LevelError, LevelService};

/// How far from their own rating a player asks to be served.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Offset {
    Easiest,
    Easier,
    #[default]
    Normal,
    Harder,
    Hardest,
}

impl Offset {
    /// Rating points added to the player's rating: lichess's steps.
    pub fn points(self) -> f64 {
        match self {
            Offset::Easiest => -600.0,
            Offset::Easier => -300.0,
            Offset::Normal => 0.0,
            Offset::Harder => 300.0,
            Offset::Hardest => 600.0,
        }
    }
}

/// How far from the target a stored level may be rated: nearer ones come first.
const WINDOW: f64 = 100.0;
/// Candidates read: a few, in case another request takes the nearest.
const CANDIDATES: u32 = 4;
/// The stream of ChaCha the fresh seeds come from (`next` in ASCII).
const FRESH_STREAM: u64 = 0x6e65_7874;
/// Fresh levels generated when no stored level is within the widest window; the
/// nearest is served.
const FRESH_TRIES: usize = 6;
/// Rounds of fresh levels drawn before `next` gives up (503).
const FRESH_ROUNDS: usize = 3;

/// The level chosen, and what the player can expect of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Next {
    pub key: LevelKey,
    /// The level's current rating (its prior until players moved it).
    pub rating: f64,
    /// The chance the player solves it, by Glicko-2's expected score.
    pub expected_score: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum NextError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Level(#[from] LevelError),
    #[error("no level could be found for this player; try again")]
    NothingFits,
}

/// Serializes one player's `next` calls on this replica, so that concurrent calls each see
/// what the ones before them were served (and so draw other fresh seeds) instead of racing
/// for the same few levels: concurrency costs latency, not refusals. A fixed number of
/// locks, taken by a hash of the player, so memory stays bounded whatever the number of
/// players; two players sharing a lock only wait for each other.
pub struct PlayerLocks {
    locks: Box<[tokio::sync::Mutex<()>]>,
    hasher: foldhash::fast::RandomState,
}

/// Locks in [`PlayerLocks`].
const PLAYER_LOCKS: usize = 1024;

impl Default for PlayerLocks {
    fn default() -> Self {
        PlayerLocks {
            locks: (0..PLAYER_LOCKS).map(|_| Default::default()).collect(),
            hasher: Default::default(),
        }
    }
}

impl PlayerLocks {
    async fn lock(&self, player: &str) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::BuildHasher;
        let lock = self.hasher.hash_one(player) as usize % self.locks.len();
        self.locks[lock].lock().await
    }
}

/// Chooses the next level of `game` for `player` and records it as served to them.
pub async fn choose(
    levels: &LevelService,
    locks: &PlayerLocks,
    game: &'static dyn Game,
    player: &str,
    offset: Offset,
    client: Option<IpAddr>,
) -> Result<Next, NextError> {
    let _turn = locks.lock(player).await;
    let store = levels.store();
    let rating = store
        .player_rating(player, game.name())
        .await?
        .unwrap_or_default();
    let target = rating.rating + offset.points();
    let query = NextQuery {
        game: game.name(),
        player,
        low: target - WINDOW,
        high: target + WINDOW,
        target,
        limit: CANDIDATES,
    };
    for candidate in store.next_candidates(&query).await? {
        let Ok(difficulty) = candidate.difficulty.parse::<Difficulty>() else {
            continue;
        };
        let key = LevelKey {
            game: game.name(),
            difficulty,
            seed: candidate.seed,
        };
        if store
            .mark_served(player, &key, crate::service::credentials::now())
            .await?
        {
            return Ok(next(key, rating, candidate.as_rating()));
        }
    }
    fresh(levels, game, player, rating, target, client).await
}

/// The nearest to `target` of a few fresh levels, by their current ratings, from the two
/// tiers whose predictions lie nearest it (a target between two tiers' levels is served
/// from both sides); a level the player met is skipped (`mark_served`). The others stay
/// stored, candidates for later requests. When every one of a round was met, or taken by a
/// request on another replica, the next round draws further seeds.
async fn fresh(
    levels: &LevelService,
    game: &'static dyn Game,
    player: &str,
    rating: Rating,
    target: f64,
    client: Option<IpAddr>,
) -> Result<Next, NextError> {
    let tiers = game.prior_model().tiers_near(target);
    let tiers = if tiers.is_empty() {
        vec![Difficulty::Medium]
    } else {
        tiers
    };
    // Any seeds will do, since the key decides the level; drawn from ChaCha seeded by how
    // many levels the player has been served, so that a player's path is reproducible.
    let served = levels.store().served_count(player, game.name()).await?;
    let mut seeds = LevelRng::for_play([served as u64, FRESH_STREAM, 0, 0]);
    for _ in 0..FRESH_ROUNDS {
        let mut round = Vec::with_capacity(FRESH_TRIES);
        for attempt in 0..FRESH_TRIES {
            let key = LevelKey {
                game: game.name(),
                difficulty: tiers[attempt % tiers.len().min(2)],
                seed: 1 + seeds.below(u64::from(u32::MAX)),
            };
            round.push((key, current_rating(levels, game, key, client).await?));
        }
        round.sort_by(|a, b| {
            (a.1.rating - target)
                .abs()
                .total_cmp(&(b.1.rating - target).abs())
        });
        for (key, level_rating) in round {
            if levels
                .store()
                .mark_served(player, &key, crate::service::credentials::now())
                .await?
            {
                return Ok(next(key, rating, level_rating));
            }
        }
    }
    Err(NextError::NothingFits)
}

/// A key's level (generated and stored when new) and its current rating: the stored one,
/// which is its prior until players move it.
async fn current_rating(
    levels: &LevelService,
    game: &'static dyn Game,
    key: LevelKey,
    client: Option<IpAddr>,
) -> Result<Rating, NextError> {
    let level = levels.get_for(game, key, client).await?;
    if let Some(stored) = levels.store().level_rating(&key).await? {
        return Ok(stored);
    }
    // Served unstored (the database is down): its prior, from its figures.
    let document = level.document();
    let par = document["par"].as_u64().unwrap_or(0) as u32;
    let prior = game
        .prior_model()
        .predict_text(par, &document["metrics"].to_string());
    Ok(Rating {
        rating: prior,
        ..Rating::default()
    })
}

fn next(key: LevelKey, player: Rating, level: Rating) -> Next {
    Next {
        key,
        rating: level.rating,
        expected_score: levelforge_store::rating::expected_score(player, level),
    }
}
