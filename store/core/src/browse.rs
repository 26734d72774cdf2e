//! Browsing stored levels: summaries in keyset order.

use levelforge_games::Difficulty;
use serde::Serialize;

use crate::rating::tenths;
use crate::seed_from_column;

/// A page request. The order is (par, seed, difficulty): par first because designers
/// browse by difficulty of play; seed and difficulty make the position unique in a game.
#[derive(Clone, Debug)]
pub struct Browse {
    pub game: &'static str,
    pub difficulty: Option<Difficulty>,
    pub par_min: Option<u32>,
    pub par_max: Option<u32>,
    /// Player rating bounds; either one limits the page to rated levels.
    pub rating_min: Option<f64>,
    pub rating_max: Option<f64>,
    /// Keeps levels rated at least this far above the mean rating of the rated levels
    /// with the same game, tier and par: the ones players find harder than par says.
    pub above_par_min: Option<f64>,
    /// Keeps rated levels whose rating lies at least this far from their prior, either
    /// way: the levels players find other than their figures predicted.
    pub prior_gap_min: Option<f64>,
    /// The page's order.
    pub sort: BrowseSort,
    /// Rows wanted; the store returns at most this many.
    pub limit: u32,
    pub after: Option<Cursor>,
}

/// A browse page's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BrowseSort {
    /// (par, seed, difficulty), in keyset pages.
    #[default]
    Par,
    /// Farthest from the prior first (rated levels with a prior only): one page, the
    /// levels most mis-tiered by their figures.
    PriorGap,
}

/// The position of the last level of a page: `par:seed:difficulty` in URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub par: u32,
    pub seed: u64,
    pub difficulty: Difficulty,
}

impl Cursor {
    pub fn parse(text: &str) -> Result<Cursor, String> {
        let bad =
            || format!("`after` must be `par:seed:difficulty` (as in a `next` link), not `{text}`");
        let mut parts = text.split(':');
        let (Some(par), Some(seed), Some(difficulty), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        Ok(Cursor {
            par: par.parse().map_err(|_| bad())?,
            seed: seed.parse().map_err(|_| bad())?,
            difficulty: difficulty.parse().map_err(|_| bad())?,
        })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.par, self.seed, self.difficulty)
    }
}

/// One stored level without its document.
#[derive(Clone, Debug, Serialize)]
pub struct LevelSummary {
    pub game: String,
    pub difficulty: String,
    pub seed: u64,
    pub version: i64,
    pub par: i64,
    pub attempts: i64,
    pub states: i64,
    pub solution_count: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    pub created_at: String,
    /// The Glicko-2 rating from players' first plays; null until the first rated play.
    pub rating: Option<f64>,
    pub rating_deviation: f64,
    pub rated_plays: i64,
    /// `rating` minus the mean rating of the rated levels of the same game, tier and
    /// par; null until rated.
    pub rating_above_par: Option<f64>,
    /// The rating the level's solver figures predicted when it was generated, its
    /// starting rating (docs/difficulty.md); null for levels stored before the model.
    pub prior_rating: Option<f64>,
}

impl LevelSummary {
    pub fn cursor(&self) -> Option<Cursor> {
        Some(Cursor {
            par: u32::try_from(self.par).ok()?,
            seed: self.seed,
            difficulty: self.difficulty.parse().ok()?,
        })
    }
}

/// A `levels` row as browse reads it, before it becomes a [`LevelSummary`].
#[derive(Clone, Debug)]
pub struct SummaryRow {
    pub game: String,
    pub difficulty: String,
    /// As stored ([`crate::seed_to_column`]).
    pub seed: i64,
    pub version: i64,
    pub par: i64,
    pub attempts: i64,
    pub states: i64,
    pub solution_count: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    /// RFC 3339, UTC, whole seconds.
    pub created_at: String,
    pub rating: f64,
    pub rating_deviation: f64,
    pub rated_plays: i64,
    pub prior_rating: Option<f64>,
}

impl From<SummaryRow> for LevelSummary {
    fn from(row: SummaryRow) -> LevelSummary {
        LevelSummary {
            game: row.game,
            difficulty: row.difficulty,
            seed: seed_from_column(row.seed),
            version: row.version,
            par: row.par,
            attempts: row.attempts,
            states: row.states,
            solution_count: row.solution_count,
            generate_ms: row.generate_ms,
            solve_ms: row.solve_ms,
            created_at: row.created_at,
            rating: (row.rated_plays > 0).then(|| tenths(row.rating)),
            rating_deviation: tenths(row.rating_deviation),
            rated_plays: row.rated_plays,
            rating_above_par: None, // see `set_par_ratings`
            prior_rating: row.prior_rating.map(tenths),
        }
    }
}

/// The (tier, par) buckets of a page's rated levels, whose mean ratings
/// [`set_par_ratings`] needs: ascending, each once.
pub fn rated_buckets(page: &[LevelSummary]) -> Vec<(String, i64)> {
    let mut buckets: Vec<(String, i64)> = page
        .iter()
        .filter(|level| level.rated_plays > 0)
        .map(|level| (level.difficulty.clone(), level.par))
        .collect();
    buckets.sort_unstable();
    buckets.dedup();
    buckets
}

/// The summed ratings of one (tier, par) bucket (`stats_pars`, shards added up).
#[derive(Clone, Debug)]
pub struct BucketRating {
    pub difficulty: String,
    pub par: i64,
    pub rating_micros: i64,
    pub rated_levels: i64,
}

/// Sets each rated summary's `rating_above_par`: its distance from the mean rating of
/// the rated levels of its (tier, par).
pub fn set_par_ratings(page: &mut [LevelSummary], buckets: &[BucketRating]) {
    for level in page.iter_mut() {
        let mean = buckets
            .iter()
            .find(|b| b.difficulty == level.difficulty && b.par == level.par && b.rated_levels > 0)
            .map(|b| b.rating_micros as f64 / 1e6 / b.rated_levels as f64);
        level.rating_above_par = match (level.rating, mean) {
            (Some(rating), Some(mean)) => Some(tenths(rating - mean)),
            _ => None,
        };
    }
}

impl Browse {
    /// Whether the page is limited to rated levels.
    pub fn rated_only(&self) -> bool {
        self.rating_min.is_some()
            || self.rating_max.is_some()
            || self.above_par_min.is_some()
            || self.prior_gap_min.is_some()
            || self.sort == BrowseSort::PriorGap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = Cursor {
            par: 7,
            seed: u64::MAX,
            difficulty: Difficulty::Hard,
        };
        assert_eq!(Cursor::parse(&c.to_string()), Ok(c));
        for bad in [
            "",
            "7",
            "7:1",
            "7:1:insane",
            "x:1:easy",
            "7:-1:easy",
            "7:1:easy:9",
        ] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
    }
}
