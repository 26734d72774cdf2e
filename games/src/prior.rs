//! A level's predicted difficulty: a rating from its solver figures, known the moment it
//! is generated, before anyone has played it.
//!
//! Per game, a linear model over the logarithms of the figures (`par`, `states`,
//! `solution_count` and the numbers of the level's `metrics`), fitted to the ratings that
//! simulated players measure (docs/difficulty.md) and committed as the game's
//! `prior.json`; `levelforge calibrate` refits it. The fit is ridge regression on
//! standardised features, solved as a small linear system.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::game::Summary;

/// The rating a level with no usable figures starts at (the players' own start).
pub const DEFAULT_RATING: f64 = 1500.0;
/// Priors are kept inside the range real ratings reach.
const RATING_RANGE: (f64, f64) = (500.0, 2500.0);
/// Metrics that describe the search, not the level: never features.
const NOT_FEATURES: &[&str] = &["attempts", "generate_ms", "solve_ms", "solution_count_cap"];

/// One game's model: `rating = intercept + Σ weight × ln(1 + figure)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PriorModel {
    pub intercept: f64,
    /// By figure name: `par`, `states`, `solution_count`, or a key of `metrics`.
    pub weights: BTreeMap<String, f64>,
    /// Each tier's mean predicted rating over the levels fitted on: where fresh levels
    /// near a target rating are to be found (`GET /players/me/next`).
    #[serde(default)]
    pub tier_means: BTreeMap<String, f64>,
    /// How the committed weights were fitted, for the record (`levelforge calibrate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<Value>,
}

impl PriorModel {
    /// A game's committed model (its `prior.json`).
    pub fn parse(json: &str) -> Result<PriorModel, String> {
        serde_json::from_str(json).map_err(|e| format!("prior.json: {e}"))
    }

    /// The predicted rating of a level with these figures. A figure the level lacks
    /// counts as 0; the result stays within the ratings' usual range.
    pub fn predict(&self, figures: &Figures) -> f64 {
        let rating = self.weights.iter().fold(self.intercept, |sum, (name, w)| {
            sum + w * figures.get(name).unwrap_or(0.0)
        });
        if rating.is_finite() {
            rating.clamp(RATING_RANGE.0, RATING_RANGE.1)
        } else {
            DEFAULT_RATING
        }
    }
}

impl PriorModel {
    /// The tiers by how near their levels' mean prediction lies to `rating`, nearest
    /// first; empty before the model has been calibrated.
    pub fn tiers_near(&self, rating: f64) -> Vec<crate::Difficulty> {
        let mut tiers: Vec<(crate::Difficulty, f64)> = self
            .tier_means
            .iter()
            .filter_map(|(tier, mean)| Some((tier.parse().ok()?, (mean - rating).abs())))
            .collect();
        tiers.sort_by(|a, b| a.1.total_cmp(&b.1));
        tiers.into_iter().map(|(tier, _)| tier).collect()
    }
}

/// A level's figures, each as `ln(1 + value)` (a boolean as 0 or 1), by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures(pub BTreeMap<String, f64>);

impl Figures {
    /// The figures of a generated level.
    pub fn of_summary(summary: &Summary) -> Figures {
        let metrics: Value = serde_json::from_str(summary.metrics.get()).unwrap_or_default();
        Figures::of(summary.par, &metrics)
    }

    /// The figures of a level with `par` and the `metrics` object of its document.
    pub fn of(par: u32, metrics: &Value) -> Figures {
        let mut figures = BTreeMap::new();
        figures.insert("par".to_string(), f64::from(par).ln_1p());
        for (name, value) in metrics.as_object().into_iter().flatten() {
            if NOT_FEATURES.contains(&name.as_str()) {
                continue;
            }
            let x = match value {
                Value::Number(n) => n.as_f64().map(|x| x.max(0.0).ln_1p()),
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                _ => None,
            };
            if let Some(x) = x {
                figures.insert(name.clone(), x);
            }
        }
        Figures(figures)
    }

    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }
}

/// Fits a model of `ratings` from `levels`' figures: every figure all levels have, by
/// ridge regression with penalty `ridge` on the standardised figures. `None` with fewer
/// than three levels.
pub fn fit(levels: &[Figures], ratings: &[f64], ridge: f64) -> Option<PriorModel> {
    if levels.len() < 3 || levels.len() != ratings.len() {
        return None;
    }
    let names: Vec<&String> = levels[0]
        .0
        .keys()
        .filter(|name| levels.iter().all(|l| l.0.contains_key(*name)))
        .collect();
    let n = levels.len() as f64;
    let column = |name: &String| -> Vec<f64> { levels.iter().map(|l| l.0[name]).collect() };
    let mean_of = |xs: &[f64]| xs.iter().sum::<f64>() / n;
    let rating_mean = mean_of(ratings);
    // Standardised columns; a constant figure carries nothing and is left out.
    let mut kept = Vec::new();
    let mut scaled: Vec<Vec<f64>> = Vec::new();
    for name in names {
        let xs = column(name);
        let mean = mean_of(&xs);
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        if sd > 1e-9 {
            scaled.push(xs.iter().map(|x| (x - mean) / sd).collect());
            kept.push((name.clone(), mean, sd));
        }
    }
    let centred: Vec<f64> = ratings.iter().map(|r| r - rating_mean).collect();
    let beta = ridge_solve(&scaled, &centred, ridge)?;
    let mut model = PriorModel {
        intercept: rating_mean,
        ..PriorModel::default()
    };
    for ((name, mean, sd), b) in kept.into_iter().zip(beta) {
        let weight = b / sd;
        model.intercept -= weight * mean;
        model.weights.insert(name, weight);
    }
    Some(model)
}

/// Solves `(XᵀX + ridge·n·I) β = Xᵀy` for the columns `x`, by Gaussian elimination with
/// partial pivoting: a system of a dozen unknowns, for which a linear-algebra crate would
/// be far more code than this.
fn ridge_solve(x: &[Vec<f64>], y: &[f64], ridge: f64) -> Option<Vec<f64>> {
    let k = x.len();
    let n = y.len() as f64;
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
    let mut m: Vec<Vec<f64>> = (0..k)
        .map(|i| {
            let mut row: Vec<f64> = (0..k).map(|j| dot(&x[i], &x[j])).collect();
            row[i] += ridge * n;
            row.push(dot(&x[i], y));
            row
        })
        .collect();
    for col in 0..k {
        let pivot = (col..k).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        for row in 0..k {
            if row != col {
                let factor = m[row][col] / m[col][col];
                let pivot_row = m[col].clone();
                for (cell, p) in m[row].iter_mut().zip(&pivot_row).skip(col) {
                    *cell -= factor * p;
                }
            }
        }
    }
    Some((0..k).map(|i| m[i][k] / m[i][i]).collect())
}

/// The Spearman rank correlation of two equally long samples (ties get their mean rank);
/// `None` when either is constant or shorter than two.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 2 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let mean = (a.len() as f64 + 1.0) / 2.0;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - mean) * (y - mean);
        va += (x - mean).powi(2);
        vb += (y - mean).powi(2);
    }
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

/// Ranks from 1, ties sharing their mean rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    let mut ranks = vec![0.0; xs.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && xs[order[end]] == xs[order[start]] {
            end += 1;
        }
        let rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn figures(par: u32, states: u64) -> Figures {
        Figures::of(
            par,
            &json!({"states": states, "attempts": 9, "perfect": true}),
        )
    }

    #[test]
    fn figures_are_logarithms_and_leave_out_the_search_s_own() {
        let f = figures(3, 99);
        assert_eq!(f.get("par"), Some(4f64.ln()));
        assert_eq!(f.get("states"), Some(100f64.ln()));
        assert_eq!(f.get("perfect"), Some(1.0));
        assert_eq!(f.get("attempts"), None);
    }

    #[test]
    fn a_fit_recovers_an_exact_linear_rating() {
        // rating = 1000 + 200 ln(1 + par) + 50 ln(1 + states), by hand for each level.
        let levels: Vec<Figures> = [(2, 10), (5, 40), (9, 30), (14, 500), (20, 90)]
            .into_iter()
            .map(|(p, s)| figures(p, s))
            .collect();
        let truth =
            |f: &Figures| 1000.0 + 200.0 * f.get("par").unwrap() + 50.0 * f.get("states").unwrap();
        let ratings: Vec<f64> = levels.iter().map(truth).collect();
        let model = fit(&levels, &ratings, 0.0).unwrap();
        assert!((model.weights["par"] - 200.0).abs() < 1e-6, "{model:?}");
        assert!((model.weights["states"] - 50.0).abs() < 1e-6);
        for (level, rating) in levels.iter().zip(&ratings) {
            assert!((model.predict(level) - rating).abs() < 1e-6);
        }
    }

    #[test]
    fn a_prediction_stays_in_range_and_missing_figures_count_zero() {
        let model = PriorModel {
            intercept: 1500.0,
            weights: BTreeMap::from([("par".into(), 1e6), ("absent".into(), 5.0)]),
            ..PriorModel::default()
        };
        assert_eq!(model.predict(&figures(3, 1)), RATING_RANGE.1);
        assert_eq!(model.predict(&Figures::default()), 1500.0);
    }

    #[test]
    fn spearman_ranks_with_ties() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }
}
