//! Collections: named, ordered lists of stored levels of one game, published in versions
//! that never change (docs/http.md). The store keeps each version's manifest as the exact
//! bytes to serve, and its entries as level keys, so that plays of its levels are plays of
//! the levels themselves.

use crate::LevelKey;

/// Entries a collection version may have.
pub const ENTRIES_MAX: usize = 200;

/// A version to publish. Its number is the collection's next one, chosen in the
/// publishing transaction; `manifest` writes the version's manifest for that number.
pub struct NewCollection<'a> {
    pub slug: &'a str,
    pub game: &'a str,
    pub title: &'a str,
    /// The levels in order, every one stored already.
    pub entries: &'a [LevelKey],
    /// Unix seconds.
    pub now: i64,
    pub manifest: &'a (dyn Fn(u32) -> String + Send + Sync),
}

/// A listed collection as `GET /collections` shows it: its latest version.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionSummary {
    pub slug: String,
    pub title: String,
    pub game: String,
    pub version: u32,
    pub size: u32,
    pub published_at: i64,
}

/// A published version's manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub version: u32,
    /// The bytes stored at publication.
    pub json: String,
}

/// One entry of a version: the level's key as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEntry {
    /// 1 for the first entry.
    pub position: u32,
    pub game: String,
    pub difficulty: String,
    pub seed: u64,
}

/// One entry and how it plays: its plays, wins, moves beyond par in won plays, and the
/// level's rating and prior.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryStats {
    pub entry: StoredEntry,
    pub par: u32,
    pub plays: i64,
    pub won: i64,
    /// Moves beyond par summed over won plays.
    pub won_moves_over_par: i64,
    /// The level's rating: its prior until rated plays moved it.
    pub rating: f64,
    pub rated_plays: i64,
    pub prior_rating: Option<f64>,
}

/// One entry and whether a player has played its level (anywhere).
#[derive(Clone, Debug, PartialEq)]
pub struct EntryProgress {
    pub entry: StoredEntry,
    pub played: bool,
    pub won: bool,
}
