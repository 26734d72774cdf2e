//! How many honest plays a mis-priced level needs: each level starts again 400 above and
//! 400 below the rating the bots gave it, at a fresh level's deviation (as a level starts
//! at its prior), and the bots, as established as the run left them, play it again in
//! their round order with the results they had, rated by the store's own rule
//! (`rate_play_of`). The count is the plays until it is within 100 of the bots' rating.

use std::fmt;

use serde_json::{Value, json};

use super::measured::Measured;
use crate::service::rating::{Rating, rate_play_of};

/// How far off the mis-priced start is, either way.
pub const OFFSET: f64 = 400.0;
/// How near the bots' rating counts as arrived.
pub const WITHIN: f64 = 100.0;

/// Per mis-priced start (two a level), the plays it needed; `None`: not within
/// [`WITHIN`] after every bot played it once.
#[derive(Clone, Debug)]
pub struct Convergence {
    plays: Vec<Option<usize>>,
    bots: usize,
}

impl Convergence {
    pub fn of(measured: &Measured) -> Convergence {
        let plays = (0..measured.ratings.len())
            .flat_map(|i| [OFFSET, -OFFSET].map(|offset| plays_to_arrive(measured, i, offset)))
            .collect();
        Convergence {
            plays,
            bots: measured.bots.len(),
        }
    }

    /// The `q` quantile of the plays needed (starts that never arrived rank last);
    /// `None` when it falls among those.
    pub fn quantile(&self, q: f64) -> Option<usize> {
        let mut sorted = self.plays.clone();
        sorted.sort_by_key(|p| p.unwrap_or(usize::MAX));
        let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len().max(1));
        sorted.get(rank - 1).copied().flatten()
    }

    /// Starts that were not within [`WITHIN`] after every bot played.
    pub fn not_arrived(&self) -> usize {
        self.plays.iter().filter(|p| p.is_none()).count()
    }

    pub fn to_json(&self) -> Value {
        json!({
            "starts": self.plays.len(),
            "median_plays": self.quantile(0.5),
            "p90_plays": self.quantile(0.9),
            "not_within": self.not_arrived(),
        })
    }
}

impl fmt::Display for Convergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |p: Option<usize>| p.map_or("-".to_string(), |p| p.to_string());
        write!(
            f,
            "a level priced {OFFSET} off comes within {WITHIN} of the bots' rating after \
             {} plays (median; 90th percentile {}); {} of {} starts not within {} plays",
            show(self.quantile(0.5)),
            show(self.quantile(0.9)),
            self.not_arrived(),
            self.plays.len(),
            self.bots,
        )
    }
}

/// Level `i` started `offset` from its measured rating, played by bot `(i + k) % bots` in
/// turn: the plays until it is within [`WITHIN`] of the measured rating.
fn plays_to_arrive(measured: &Measured, i: usize, offset: f64) -> Option<usize> {
    let target = measured.ratings[i].rating;
    let mut level = Rating {
        rating: target + offset,
        ..Rating::default()
    };
    let bots = measured.bots.len();
    (0..bots).find_map(|k| {
        let bot = (i + k) % bots;
        level = rate_play_of(&measured.bots[bot], level, measured.solved[i][bot]).level;
        ((level.rating - target).abs() <= WITHIN).then_some(k + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::rating::Standing;

    fn established(rating: f64) -> Standing {
        Standing {
            rating: Rating {
                rating,
                deviation: 60.0,
                volatility: 0.06,
            },
            rated_plays: 100,
        }
    }

    #[test]
    fn a_level_every_strong_bot_fails_is_found_from_below_and_newcomers_find_nothing() {
        // Four strong bots fail a level rated 1900: started at 1500 it climbs, 100 a play
        // at most, and arrives within 100 on the third play.
        let measured = Measured {
            solved: vec![vec![false; 4]],
            ratings: vec![Rating {
                rating: 1900.0,
                ..Rating::default()
            }],
            bots: vec![established(1800.0); 4],
        };
        let convergence = Convergence::of(&measured);
        assert_eq!(plays_to_arrive(&measured, 0, -OFFSET), Some(3));
        assert_eq!(convergence.plays.len(), 2);
        // Newcomers' losses move no level: it never arrives.
        let newcomers = Measured {
            bots: vec![Standing::new(); 4],
            ..measured
        };
        assert_eq!(Convergence::of(&newcomers).not_arrived(), 2);
        assert_eq!(Convergence::of(&newcomers).quantile(0.5), None);
    }
}
