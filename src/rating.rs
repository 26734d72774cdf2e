//! Player-calibrated difficulty: Glicko-2 (Glickman, "Example of the Glicko-2 system"),
//! used as lichess rates its puzzles. A play is a game between a player and a level: the
//! player wins by solving it (the server's replay says won), the level wins otherwise.
//! Each rated play is its own rating period for both sides, so ratings move after every
//! play, and each move is bounded so one lucky or unlucky play cannot swing a level.

use serde::Serialize;

/// Glicko's rating scale factor (400 / ln 10).
const SCALE: f64 = 173.7178;
/// The constraint on volatility change; Glickman suggests 0.3 to 1.2.
const TAU: f64 = 0.5;
/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 1e-6;
/// The most a rating moves in one play, either way.
pub const MAX_CHANGE_PER_PLAY: f64 = 100.0;
/// Deviation never drops below this, so a settled rating can still follow new evidence
/// (lichess uses the same floor), nor rises above the newcomer's.
const MIN_DEVIATION: f64 = 45.0;
const MAX_DEVIATION: f64 = 350.0;
const MAX_VOLATILITY: f64 = 0.1;
/// Ratings are kept within this band.
const RATING_RANGE: (f64, f64) = (400.0, 4000.0);

/// A Glicko-2 rating in the familiar 1500-based scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    /// A newcomer: average, maximally uncertain.
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: MAX_DEVIATION,
            volatility: 0.06,
        }
    }
}

/// Both sides of one rated play, after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedPlay {
    pub player: Rating,
    pub level: Rating,
}

/// Rates one play: `solved` is whether the player beat the level. Both sides are
/// updated from their ratings before the play.
pub fn rate_play(player: Rating, level: Rating, solved: bool) -> RatedPlay {
    let score = if solved { 1.0 } else { 0.0 };
    RatedPlay {
        player: bounded(player, update(player, &[(level, score)])),
        level: bounded(level, update(level, &[(player, 1.0 - score)])),
    }
}

/// The Glicko-2 update (volatility capped, rating unbounded) of `rating` after one period with `results`
/// (opponent, score in [0, 1]); with no results only the deviation grows.
pub fn update(rating: Rating, results: &[(Rating, f64)]) -> Rating {
    let mu = (rating.rating - 1500.0) / SCALE;
    let phi = rating.deviation / SCALE;
    if results.is_empty() {
        let phi = (phi * phi + rating.volatility * rating.volatility).sqrt();
        return Rating {
            deviation: phi * SCALE,
            ..rating
        };
    }
    let mut inverse_variance = 0.0;
    let mut score_gap = 0.0;
    for &(opponent, score) in results {
        let mu_j = (opponent.rating - 1500.0) / SCALE;
        let g = g(opponent.deviation / SCALE);
        let expected = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
        inverse_variance += g * g * expected * (1.0 - expected);
        score_gap += g * (score - expected);
    }
    let variance = 1.0 / inverse_variance;
    let delta = variance * score_gap;
    // Capped before it widens the deviation (as lichess does): a side that keeps
    // beating the rating clamp would otherwise grow ever more uncertain.
    let volatility = new_volatility(phi, rating.volatility, variance, delta).min(MAX_VOLATILITY);
    let phi_star = (phi * phi + volatility * volatility).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / variance).sqrt();
    let mu_new = mu + phi_new * phi_new * score_gap;
    Rating {
        rating: 1500.0 + mu_new * SCALE,
        deviation: phi_new * SCALE,
        volatility,
    }
}

/// Glicko-2's weight of a result against an opponent of deviation `phi`.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Step 5 of Glickman's paper: the new volatility, by the Illinois algorithm.
fn new_volatility(phi: f64, sigma: f64, variance: f64, delta: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let denominator = phi * phi + variance + ex;
        ex * (delta * delta - phi * phi - variance - ex) / (2.0 * denominator * denominator)
            - (x - a) / (TAU * TAU)
    };
    let mut x_a = a;
    let mut x_b = if delta * delta > phi * phi + variance {
        (delta * delta - phi * phi - variance).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_a, mut f_b) = (f(x_a), f(x_b));
    // Bounded: the bracket halves at least every other step.
    for _ in 0..100 {
        if (x_b - x_a).abs() <= EPSILON {
            break;
        }
        let x_c = x_a + (x_a - x_b) * f_a / (f_b - f_a);
        let f_c = f(x_c);
        if f_c * f_b <= 0.0 {
            x_a = x_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        x_b = x_c;
        f_b = f_c;
    }
    (x_a / 2.0).exp()
}

/// A rating figure rounded for people (tenths): the JSON shows no float noise.
pub fn tenths(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// `after`, with its move from `before` and its figures held to the bounds.
fn bounded(before: Rating, after: Rating) -> Rating {
    if !(after.rating.is_finite() && after.deviation.is_finite() && after.volatility.is_finite()) {
        return before;
    }
    let change = (after.rating - before.rating).clamp(-MAX_CHANGE_PER_PLAY, MAX_CHANGE_PER_PLAY);
    Rating {
        rating: (before.rating + change).clamp(RATING_RANGE.0, RATING_RANGE.1),
        deviation: after.deviation.clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: after.volatility.min(MAX_VOLATILITY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // The paper's example: 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.
        let after = update(
            rating(1500.0, 200.0),
            &[
                (rating(1400.0, 30.0), 1.0),
                (rating(1550.0, 100.0), 0.0),
                (rating(1700.0, 300.0), 0.0),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let before = rating(1600.0, 100.0);
        let after = update(before, &[]);
        assert_eq!(after.rating, 1600.0);
        assert!(after.deviation > 100.0 && after.deviation < 101.0);
    }

    #[test]
    fn solving_raises_the_player_and_lowers_the_level() {
        let played = rate_play(Rating::default(), Rating::default(), true);
        assert!(played.player.rating > 1500.0);
        assert!(played.level.rating < 1500.0);
        // Even sides: the changes mirror each other.
        assert!((played.player.rating - 1500.0 + played.level.rating - 1500.0).abs() < 1e-9);
        let failed = rate_play(Rating::default(), Rating::default(), false);
        assert!(failed.player.rating < 1500.0 && failed.level.rating > 1500.0);
    }

    #[test]
    fn one_play_moves_a_rating_by_at_most_the_bound() {
        // A newcomer losing to a level rated far below: unbounded, a drop of several hundred.
        let player = Rating::default();
        let level = rating(800.0, 45.0);
        assert!(update(player, &[(level, 0.0)]).rating < 1500.0 - MAX_CHANGE_PER_PLAY);
        let played = rate_play(player, level, false);
        assert_eq!(played.player.rating, 1500.0 - MAX_CHANGE_PER_PLAY);
        assert!(played.level.rating - 800.0 <= MAX_CHANGE_PER_PLAY);
    }

    #[test]
    fn a_level_pinned_at_the_clamp_stays_in_range_and_settles() {
        // It beats the strongest possible player every time: the rating stops at the top
        // of the range, and the capped volatility keeps the deviation from growing back.
        let mut level = Rating::default();
        let mut deviations = Vec::new();
        for _ in 0..500 {
            level = rate_play(rating(4000.0, 45.0), level, false).level;
            deviations.push(level.deviation);
        }
        assert_eq!(level.rating, RATING_RANGE.1);
        assert!(level.volatility <= MAX_VOLATILITY);
        // One play per period: the deviation settles near 60, inside the bounds.
        assert!(
            (MIN_DEVIATION..80.0).contains(&level.deviation),
            "{level:?}"
        );
        assert!(
            (deviations[499] - deviations[400]).abs() < 0.5,
            "not settled"
        );
    }

    #[test]
    fn a_level_that_beats_strong_players_climbs_above_one_they_solve() {
        let strong = rating(1900.0, 60.0);
        let (mut hard, mut easy) = (Rating::default(), Rating::default());
        for _ in 0..20 {
            hard = rate_play(strong, hard, false).level;
            easy = rate_play(strong, easy, true).level;
        }
        assert!(hard.rating > 1900.0, "{hard:?}");
        assert!(easy.rating < 1500.0, "{easy:?}");
    }
}
