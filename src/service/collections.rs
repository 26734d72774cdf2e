//! Collections between HTTP and the store: publishing proves every entry and writes the
//! version's manifest once; published versions are read from memory after their first
//! request, since they never change. Knows nothing of any one game's rules.

use std::sync::Arc;

use levelforge_games::{Difficulty, Game, GameError, Limits, registry};
use moka::future::Cache;
use serde_json::{Value, json};

use crate::compression::Variants;
use crate::service::levels::{LevelError, LevelService, ServedLevel};
use crate::service::store::{
    CollectionSummary, EntryProgress, EntryStats, LevelKey, NewCollection, NewLevel, StoreError,
    StoredEntry,
};

/// Published versions (manifests and entry lists) kept in memory, each counted as one.
const VERSIONS_IN_MEMORY: u64 = 10_000;

/// An entry of a version to publish, as the client sent it.
#[derive(Clone, Debug)]
pub enum EntryDraft {
    /// A stored or generated level by its key.
    Key(Difficulty, u64),
    /// A hand-made level document, as `POST /verify` takes it.
    Level(Value),
}

/// Why an entry refuses a version: its place (1 for the first) and what is wrong.
#[derive(Debug)]
pub enum EntryError {
    /// The game refuses the document (shape or rule), or cannot prove it.
    Game(usize, GameError),
    /// The key has no level (an unknown hand-made key, or no generated level).
    Level(usize, LevelError),
    /// The hand-made level's address holds another level (a hash collision).
    Collision(usize),
    Store(StoreError),
}

/// The published versions in memory, by (slug, version).
#[derive(Clone)]
pub struct CollectionService {
    manifests: Cache<(String, u32), Arc<Variants>>,
    entries: Cache<(String, u32), Arc<Vec<StoredEntry>>>,
}

impl Default for CollectionService {
    fn default() -> Self {
        CollectionService {
            manifests: Cache::new(VERSIONS_IN_MEMORY),
            entries: Cache::new(VERSIONS_IN_MEMORY),
        }
    }
}

impl CollectionService {
    /// A published version's manifest as served, from memory after its first read.
    pub async fn manifest(
        &self,
        levels: &LevelService,
        slug: &str,
        version: u32,
    ) -> Result<Option<Arc<Variants>>, StoreError> {
        let key = (slug.to_string(), version);
        if let Some(found) = self.manifests.get(&key).await {
            return Ok(Some(found));
        }
        let Some(stored) = levels
            .store()
            .collection_manifest(slug, Some(version))
            .await?
        else {
            return Ok(None);
        };
        let variants = Arc::new(Variants::new(stored.json));
        self.manifests.insert(key, variants.clone()).await;
        Ok(Some(variants))
    }

    /// A published version's manifest if it is in memory; never reads the store.
    pub async fn cached_manifest(&self, slug: &str, version: u32) -> Option<Arc<Variants>> {
        self.manifests.get(&(slug.to_string(), version)).await
    }

    /// A published version's entries if they are in memory; never reads the store.
    pub async fn cached_entries(&self, slug: &str, version: u32) -> Option<Arc<Vec<StoredEntry>>> {
        self.entries.get(&(slug.to_string(), version)).await
    }

    /// A published version's entries in order, from memory after their first read; empty
    /// for a version never published.
    pub async fn entries(
        &self,
        levels: &LevelService,
        slug: &str,
        version: u32,
    ) -> Result<Arc<Vec<StoredEntry>>, StoreError> {
        let key = (slug.to_string(), version);
        if let Some(found) = self.entries.get(&key).await {
            return Ok(found);
        }
        let entries = Arc::new(levels.store().collection_entries(slug, version).await?);
        if !entries.is_empty() {
            self.entries.insert(key, entries.clone()).await;
        }
        Ok(entries)
    }
}

/// Every listed collection's latest version.
pub async fn listed(levels: &LevelService) -> Result<Vec<CollectionSummary>, StoreError> {
    levels.store().collections().await
}

/// The latest version of a listed collection; `None` when it is not listed.
pub async fn latest_version(levels: &LevelService, slug: &str) -> Result<Option<u32>, StoreError> {
    let latest = levels.store().collection_manifest(slug, None).await?;
    Ok(latest.map(|manifest| manifest.version))
}

/// Takes a collection off the list (its versions stay readable); false when it was not
/// listed.
pub async fn unpublish(levels: &LevelService, slug: &str) -> Result<bool, StoreError> {
    levels.store().unpublish_collection(slug).await
}

/// The latest version and which of its entries the player has played; `None` when the
/// collection is not listed.
pub async fn progress(
    levels: &LevelService,
    slug: &str,
    player: &str,
) -> Result<Option<(u32, Vec<EntryProgress>)>, StoreError> {
    let Some(version) = latest_version(levels, slug).await? else {
        return Ok(None);
    };
    let progress = levels.store().collection_progress(slug, version, player);
    Ok(Some((version, progress.await?)))
}

/// How each entry of a version plays, in order (none for a version never published).
pub async fn entry_stats(
    levels: &LevelService,
    slug: &str,
    version: u32,
) -> Result<Vec<EntryStats>, StoreError> {
    levels.store().collection_stats(slug, version).await
}

/// The key of a stored entry, if its game is one of ours and its difficulty parses.
pub fn entry_key(entry: &StoredEntry) -> Option<(&'static dyn Game, LevelKey)> {
    let game = registry::find(&entry.game)?;
    let difficulty = entry.difficulty.parse().ok()?;
    Some((
        game,
        LevelKey {
            game: game.name(),
            difficulty,
            seed: entry.seed,
        },
    ))
}

/// Every entry as a stored level, in order: keys fetched (or generated) and stored,
/// documents proven by the solver within `max_states` and stored at their content's
/// address. The first entry that fails refuses the whole version.
pub async fn prove_entries(
    levels: &LevelService,
    game: &'static dyn Game,
    drafts: Vec<EntryDraft>,
    max_states: u64,
) -> Result<Vec<(LevelKey, Arc<ServedLevel>)>, EntryError> {
    let mut proven = Vec::with_capacity(drafts.len());
    for (i, draft) in drafts.into_iter().enumerate() {
        let n = i + 1;
        let entry = match draft {
            EntryDraft::Key(difficulty, seed) => {
                let key = LevelKey {
                    game: game.name(),
                    difficulty,
                    seed,
                };
                let level = levels
                    .get(game, key)
                    .await
                    .map_err(|e| EntryError::Level(n, e))?;
                (key, level)
            }
            EntryDraft::Level(document) => prove_hand_made(levels, game, document, max_states)
                .await
                .map_err(|e| match e {
                    HandMadeError::Game(e) => EntryError::Game(n, e),
                    HandMadeError::Level(e) => EntryError::Level(n, e),
                    HandMadeError::Collision => EntryError::Collision(n),
                    HandMadeError::Store(e) => EntryError::Store(e),
                })?,
        };
        proven.push(entry);
    }
    Ok(proven)
}

enum HandMadeError {
    Game(GameError),
    Level(LevelError),
    Collision,
    Store(StoreError),
}

/// A hand-made document solved in the verify pool and stored as a level of difficulty
/// `custom` (the first writer's bytes win, as for generated levels).
async fn prove_hand_made(
    levels: &LevelService,
    game: &'static dyn Game,
    document: Value,
    max_states: u64,
) -> Result<(LevelKey, Arc<ServedLevel>), HandMadeError> {
    let made = levels
        .run_verification(move |stop| game.hand_made(&document, &Limits { max_states, stop }))
        .await
        .map_err(HandMadeError::Level)?
        .map_err(HandMadeError::Game)?;
    let ours: Value = serde_json::from_str(&made.json).expect("levels are JSON");
    let key = LevelKey {
        game: game.name(),
        difficulty: Difficulty::Custom,
        seed: ours["seed"]
            .as_u64()
            .expect("a level document has its seed"),
    };
    let new = NewLevel {
        version: game.version(),
        json: &made.json,
        summary: &made.summary,
    };
    let stored = levels
        .store()
        .insert_level(&key, &new)
        .await
        .map_err(HandMadeError::Store)?;
    if stored != made.json {
        // Stored before (by this or another collection, or replica): the same level, unless
        // two contents share the hash.
        let theirs: Value = serde_json::from_str(&stored).expect("stored levels are JSON");
        let same = game.canonical_level(&theirs).ok() == game.canonical_level(&ours).ok();
        if !same {
            return Err(HandMadeError::Collision);
        }
    }
    let level = levels.get(game, key).await.map_err(HandMadeError::Level)?;
    Ok((key, level))
}

/// A version's manifest: what a client needs to show the collection and fetch, play and
/// report each level (by the level's own address, where plays, checks and hints are).
pub fn manifest(
    slug: &str,
    title: &str,
    game: &str,
    version: u32,
    published_at: i64,
    entries: &[(LevelKey, Arc<ServedLevel>)],
) -> String {
    let entries: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(i, (key, level))| {
            let n = i + 1;
            json!({
                "n": n,
                "difficulty": key.difficulty,
                "seed": key.seed,
                "par": level.document()["par"],
                "href": format!("/collections/{slug}/v/{version}/{n}"),
                "level": format!("/levels/{}/{}?game={game}", key.difficulty, key.seed),
            })
        })
        .collect();
    json!({
        "slug": slug,
        "version": version,
        "title": title,
        "game": game,
        "published_at": published_at,
        "size": entries.len(),
        "entries": entries,
    })
    .to_string()
}

/// Publishes the next version of `slug` with these proven entries.
pub async fn publish(
    levels: &LevelService,
    slug: &str,
    title: &str,
    game: &'static dyn Game,
    entries: &[(LevelKey, Arc<ServedLevel>)],
    now: i64,
) -> Result<(u32, String), StoreError> {
    for (key, level) in entries {
        levels.ensure_stored(key, level).await?;
    }
    let keys: Vec<LevelKey> = entries.iter().map(|(key, _)| *key).collect();
    let written = std::sync::Mutex::new(String::new());
    let write = |version: u32| {
        let text = manifest(slug, title, game.name(), version, now, entries);
        *written.lock().expect("not poisoned") = text.clone();
        text
    };
    let version = levels
        .store()
        .publish_collection(&NewCollection {
            slug,
            game: game.name(),
            title,
            entries: &keys,
            now,
            manifest: &write,
        })
        .await?;
    let text = written.into_inner().expect("not poisoned");
    Ok((version, text))
}

/// Per entry, in collection order: whether it plays harder (a higher rating) than some
/// later entry by more than `margin` rating points, so that the order climbs down there.
pub fn harder_than_a_later_one(ratings: &[f64], margin: f64) -> Vec<bool> {
    let mut easiest_after = f64::INFINITY;
    let mut flagged = vec![false; ratings.len()];
    for (i, &rating) in ratings.iter().enumerate().rev() {
        flagged[i] = rating - easiest_after > margin;
        easiest_after = easiest_after.min(rating);
    }
    flagged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_flagged_when_a_later_one_is_easier_by_more_than_the_margin() {
        // 1500 then 1700, then 1550: the 1700 is 150 above a later entry; the first
        // 1500 is below everything after it.
        let ratings = [1500.0, 1700.0, 1550.0, 1560.0];
        assert_eq!(
            harder_than_a_later_one(&ratings, 100.0),
            [false, true, false, false]
        );
        // At 150 the gap is not more than the margin.
        assert_eq!(harder_than_a_later_one(&ratings, 150.0), [false; 4]);
        // A climbing order flags nothing; the last entry never is.
        assert_eq!(
            harder_than_a_later_one(&[1200.0, 1300.0, 1900.0], 0.0),
            [false; 3]
        );
        assert!(harder_than_a_later_one(&[], 0.0).is_empty());
    }
}
