//! What `GET /players/me/next` asks of the store: stored levels near a target rating that
//! a player has not met yet (docs/difficulty.md).

use crate::rating::Rating;

/// Stored levels of `game` rated within `low..=high`, for `player`, nearest `target`
/// first, at most `limit`.
#[derive(Clone, Debug)]
pub struct NextQuery<'a> {
    pub game: &'a str,
    pub player: &'a str,
    pub low: f64,
    pub high: f64,
    pub target: f64,
    pub limit: u32,
}

/// A stored level `next` may choose, with its current rating (its prior until played).
#[derive(Clone, Debug, PartialEq)]
pub struct NextCandidate {
    pub difficulty: String,
    pub seed: u64,
    pub rating: f64,
    pub deviation: f64,
}

impl NextCandidate {
    /// Its rating for the expected score, which needs only the rating and deviation
    /// (volatility is left at the default).
    pub fn as_rating(&self) -> Rating {
        Rating {
            rating: self.rating,
            deviation: self.deviation,
            ..Rating::default()
        }
    }
}
