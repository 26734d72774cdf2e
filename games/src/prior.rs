//! A level's predicted difficulty: a rating from its solver figures, known the moment it
//! is generated, before anyone has played it.
//!
//! Per game, a linear model over the logarithms of the figures (`par`, `states`,
//! `solution_count` and the numbers of the level's `metrics`), fitted to the ratings that
//! simulated players measure (docs/difficulty.md) and committed as the game's
//! `prior.json`; `levelforge calibrate` refits it. The fit is ridge regression on
//! standardised features, solved as a small linear system.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::difficulty::Difficulty;

/// The rating a level with no usable figures starts at (the players' own start).
pub const DEFAULT_RATING: f64 = 1500.0;
/// Priors are kept inside the range real ratings reach.
const RATING_RANGE: (f64, f64) = (500.0, 2500.0);
/// Metrics that describe the search, not the level: never features.
const NOT_FEATURES: &[&str] = &["attempts", "generate_ms", "solve_ms", "solution_count_cap"];

/// One game's model: `rating = intercept + Σ weight × ln(1 + figure)`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PriorModel {
    pub intercept: f64,
    /// By figure name: `par`, `states`, `solution_count`, or a key of `metrics`.
    pub weights: BTreeMap<String, f64>,
    /// Each tier's mean predicted rating over the levels fitted on: where fresh levels
    /// near a target rating are to be found (`GET /players/me/next`).
    #[serde(default)]
    pub tier_means: BTreeMap<String, f64>,
    /// How the committed weights were fitted, for the record (`levelforge calibrate`),
    /// kept as text: a prediction never reads it, and a tree of it cost more to build
    /// than some whole generations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<Box<RawValue>>,
}

impl PriorModel {
    /// A game's committed model (its `prior.json`).
    pub fn parse(json: &str) -> Result<PriorModel, String> {
        serde_json::from_str(json).map_err(|e| format!("prior.json: {e}"))
    }

    /// The model of a committed `prior.json`, parsed once per process: every generation
    /// predicts, and parsing the file each time cost more than some whole generations.
    pub fn committed(json: &'static str) -> Result<&'static PriorModel, String> {
        static MODELS: Mutex<Vec<(usize, &'static PriorModel)>> = Mutex::new(Vec::new());
        let mut models = MODELS.lock().unwrap_or_else(|e| e.into_inner());
        let id = json.as_ptr() as usize;
        if let Some((_, model)) = models.iter().find(|(at, _)| *at == id) {
            return Ok(model);
        }
        // One per game, for the life of the process.
        let model: &'static PriorModel = Box::leak(Box::new(PriorModel::parse(json)?));
        models.push((id, model));
        Ok(model)
    }

    /// The predicted rating of a level with these figures. A figure the level lacks
    /// counts as 0; the result stays within the ratings' usual range.
    pub fn predict(&self, figures: &Figures) -> f64 {
        let rating = self.weights.iter().fold(self.intercept, |sum, (name, w)| {
            sum + w * figures.get(name).unwrap_or(0.0)
        });
        in_range(rating)
    }

    /// [`PriorModel::predict`] for a level of `par` whose `metrics` object is the JSON
    /// text `metrics`, read in one pass that builds nothing: this runs for every
    /// generated level. `Figures::of_metrics` then `predict` give the same answer.
    pub fn predict_text(&self, par: u32, metrics: &str) -> f64 {
        let par_term = self.weight("par") * f64::from(par).ln_1p();
        let mut reader = serde_json::Deserializer::from_str(metrics);
        match serde::de::DeserializeSeed::deserialize(WeightedSum(self), &mut reader) {
            Ok(sum) => in_range(self.intercept + par_term + sum),
            Err(_) => DEFAULT_RATING,
        }
    }

    fn weight(&self, name: &str) -> f64 {
        self.weights.get(name).copied().unwrap_or(0.0)
    }
}

impl PriorModel {
    /// The tiers by how near their levels' mean prediction lies to `rating`, nearest
    /// first; empty before the model has been calibrated.
    pub fn tiers_near(&self, rating: f64) -> Vec<Difficulty> {
        let mut tiers: Vec<(Difficulty, f64)> = self
            .tier_means
            .iter()
            .filter_map(|(tier, mean)| Some((tier.parse().ok()?, (mean - rating).abs())))
            .collect();
        tiers.sort_by(|a, b| a.1.total_cmp(&b.1));
        tiers.into_iter().map(|(tier, _)| tier).collect()
    }
}

/// A rating held to the range real ratings reach; 1500 for a model that gave no number.
fn in_range(rating: f64) -> f64 {
    if rating.is_finite() {
        rating.clamp(RATING_RANGE.0, RATING_RANGE.1)
    } else {
        DEFAULT_RATING
    }
}

/// Σ weight × figure over a `metrics` object, as it is read.
struct WeightedSum<'m>(&'m PriorModel);

impl<'de> serde::de::DeserializeSeed<'de> for WeightedSum<'_> {
    type Value = f64;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<f64, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for WeightedSum<'_> {
    type Value = f64;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a metrics object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<f64, A::Error> {
        let mut sum = 0.0;
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let figure: Figure = map.next_value()?;
            if let Some(x) = figure.value().filter(|_| !NOT_FEATURES.contains(&&*name)) {
                sum += self.0.weight(&name) * x;
            }
        }
        Ok(sum)
    }
}

/// A level's figures, each as `ln(1 + value)` (a boolean as 0 or 1), by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures(pub BTreeMap<String, f64>);

impl Figures {
    /// The figures of a level of `par` whose `metrics` object is the JSON text
    /// `metrics` (a generated level's `Summary::metrics`), read without building a tree.
    pub fn of_metrics(par: u32, metrics: &str) -> Figures {
        let metrics: BTreeMap<&str, Figure> = serde_json::from_str(metrics).unwrap_or_default();
        let mut figures = BTreeMap::new();
        figures.insert("par".to_string(), f64::from(par).ln_1p());
        for (name, figure) in metrics {
            if let Some(x) = figure.value().filter(|_| !NOT_FEATURES.contains(&name)) {
                figures.insert(name.to_string(), x);
            }
        }
        Figures(figures)
    }

    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }
}

/// One entry of `metrics`: a number or a boolean is a figure, anything else is not.
enum Figure {
    Number(f64),
    Bool(bool),
    Other,
}

/// By hand rather than `#[serde(untagged)]`, which buffers every value to try each
/// variant: this runs for every generated level.
impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Figure, D::Error> {
        struct FigureVisitor;
        impl<'de> serde::de::Visitor<'de> for FigureVisitor {
            type Value = Figure;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a metric")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Figure, E> {
                Ok(Figure::Bool(b))
            }
            fn visit_u64<E>(self, x: u64) -> Result<Figure, E> {
                Ok(Figure::Number(x as f64))
            }
            fn visit_i64<E>(self, x: i64) -> Result<Figure, E> {
                Ok(Figure::Number(x as f64))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Figure, E> {
                Ok(Figure::Number(x))
            }
            fn visit_str<E>(self, _: &str) -> Result<Figure, E> {
                Ok(Figure::Other)
            }
            fn visit_unit<E>(self) -> Result<Figure, E> {
                Ok(Figure::Other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Figure, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Figure::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Figure, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Figure::Other)
            }
        }
        deserializer.deserialize_any(FigureVisitor)
    }
}

impl Figure {
    /// `ln(1 + x)` of a number (counts are heavy-tailed), 0 or 1 for a boolean.
    fn value(&self) -> Option<f64> {
        match *self {
            Figure::Number(x) => Some(x.max(0.0).ln_1p()),
            Figure::Bool(b) => Some(f64::from(u8::from(b))),
            Figure::Other => None,
        }
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
        let metrics = json!({"states": states, "attempts": 9, "perfect": true, "technique": "x"});
        Figures::of_metrics(par, &metrics.to_string())
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

    /// A game's `prior.json` parses and reads only figures its levels have, and every
    /// calibrated game predicts different ratings for its easy and expert levels.
    #[test]
    fn every_game_s_model_reads_its_own_figures() {
        for game in crate::registry::all() {
            let model = game.prior_model();
            let mut predictions = Vec::new();
            for tier in [Difficulty::Easy, Difficulty::Expert] {
                let level = game.generate(tier, 1, &crate::core::Stop::never()).unwrap();
                let figures = Figures::of_metrics(level.summary.par, level.summary.metrics.get());
                for name in model.weights.keys() {
                    assert!(
                        figures.get(name).is_some(),
                        "{}: no figure `{name}`",
                        game.name()
                    );
                }
                // The same terms, summed in another order.
                assert!((level.summary.prior_rating - model.predict(&figures)).abs() < 1e-9);
                let text = level.summary.metrics.get();
                let by_text = model.predict_text(level.summary.par, text);
                assert!((by_text - level.summary.prior_rating).abs() < 1e-9);
                predictions.push(level.summary.prior_rating);
            }
            assert!(
                predictions[1] > predictions[0],
                "{}: {predictions:?}",
                game.name()
            );
        }
    }

    #[test]
    fn spearman_ranks_with_ties() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }
}
