//! The difficulty chart, as SVG: measured against predicted rating, one dot a level
//! coloured by tier, beside the simulated players' solve rate per tier, one line a skill.
//! `levelforge simulate --plot` draws it from the bots' ratings (docs/difficulty.md); the
//! dashboard's `GET /difficulty.svg` from the players'. Hand-written: a few dozen
//! elements, where a plotting crate would bring a font stack.

use std::collections::BTreeMap;
use std::fmt::Write;

use levelforge_games::{Difficulty, Game};

use crate::service::levels::LevelService;
use crate::service::store::{Browse, BrowseSort, StoreError};

/// One level: its tier, its prior, and the rating plays measured.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub tier: Difficulty,
    pub predicted: f64,
    pub measured: f64,
}

/// Solve rate per tier (in `Difficulty::ALL` order), by skill name, weakest first.
pub type Curves = Vec<(String, [Option<f64>; 4])>;

const TIER_COLOURS: [&str; 4] = ["#2e7d32", "#1565c0", "#ef6c00", "#c62828"];
const SKILL_COLOURS: [&str; 4] = ["#9e9e9e", "#6d4c41", "#5e35b1", "#000000"];
const PANEL: f64 = 300.0;
const MARGIN: f64 = 48.0;
const WIDTH: f64 = 2.0 * PANEL + 3.0 * MARGIN;
const HEIGHT: f64 = PANEL + 2.0 * MARGIN + 24.0;

/// Rated levels per tier drawn on the players' chart.
const CHART_LEVELS_PER_TIER: u32 = 100;

/// The chart of `game`'s levels as players rated them against the ratings their figures
/// predicted, beside the simulated players' solve rates from the model's calibration.
pub async fn players_chart(levels: &LevelService, game: &dyn Game) -> Result<String, StoreError> {
    let mut points = Vec::new();
    for tier in Difficulty::ALL {
        for level in levels.browse(&rated_with_prior(game, tier)).await? {
            if let (Some(measured), Some(predicted)) = (level.rating, level.prior_rating) {
                points.push(Point {
                    tier,
                    predicted,
                    measured,
                });
            }
        }
    }
    let model = game.prior_model();
    let rates = model
        .fitted
        .as_ref()
        .and_then(|f| serde_json::from_str::<serde_json::Value>(f.get()).ok())
        .and_then(|f| serde_json::from_value(f["solve_rates"].clone()).ok())
        .unwrap_or_default();
    let skills: Vec<&str> = levelforge_games::SKILLS.iter().map(|k| k.name).collect();
    let title = format!(
        "{}: {} rated levels, players against prior; simulated players' solve rates",
        game.name(),
        points.len()
    );
    Ok(chart(&title, &points, &curves_of(&skills, &rates)))
}

/// A tier's first rated levels that have a prior, by par.
fn rated_with_prior(game: &dyn Game, tier: Difficulty) -> Browse {
    Browse {
        game: game.name(),
        difficulty: Some(tier),
        par_min: None,
        par_max: None,
        rating_min: None,
        rating_max: None,
        above_par_min: None,
        // Every rated level with a prior.
        prior_gap_min: Some(0.0),
        sort: BrowseSort::Par,
        limit: CHART_LEVELS_PER_TIER,
        after: None,
    }
}

/// The chart of `points` and `curves`, titled `title`.
pub fn chart(title: &str, points: &[Point], curves: &Curves) -> String {
    let mut svg = String::with_capacity(16 * 1024);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="11"><rect width="{WIDTH}" height="{HEIGHT}" fill="white"/><text x="{MARGIN}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    scatter(&mut svg, points);
    solve_rates(&mut svg, curves);
    svg.push_str("</svg>");
    svg
}

/// Left panel: measured (up) against predicted (across), the diagonal where they agree.
fn scatter(svg: &mut String, points: &[Point]) {
    let values = points.iter().flat_map(|p| [p.predicted, p.measured]);
    let (low, high) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (low, high) = if low < high {
        ((low / 100.0).floor() * 100.0, (high / 100.0).ceil() * 100.0)
    } else {
        (1000.0, 2000.0)
    };
    let (x0, y0) = (MARGIN, MARGIN);
    let at = |v: f64| (v - low) / (high - low) * PANEL;
    frame(svg, x0, y0, "predicted rating (prior)", "measured rating");
    ticks(svg, x0, y0, low, high, |v| format!("{v:.0}"));
    let _ = write!(
        svg,
        r##"<line x1="{x0}" y1="{}" x2="{}" y2="{y0}" stroke="#bbb" stroke-dasharray="4 3"/>"##,
        y0 + PANEL,
        x0 + PANEL
    );
    for p in points {
        let _ = write!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{}" fill-opacity="0.7"/>"#,
            x0 + at(p.predicted),
            y0 + PANEL - at(p.measured),
            TIER_COLOURS[p.tier.index()]
        );
    }
    for (i, tier) in Difficulty::ALL.iter().enumerate() {
        legend(
            svg,
            x0 + 8.0,
            y0 + 14.0 + 14.0 * i as f64,
            TIER_COLOURS[i],
            tier.as_str(),
        );
    }
}

/// Right panel: each skill's solve rate from easy to expert.
fn solve_rates(svg: &mut String, curves: &Curves) {
    let (x0, y0) = (2.0 * MARGIN + PANEL, MARGIN);
    frame(svg, x0, y0, "tier", "solve rate");
    for (i, tier) in Difficulty::ALL.iter().enumerate() {
        let x = x0 + tier_x(i);
        let _ = write!(
            svg,
            r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
            y0 + PANEL + 14.0,
            tier.as_str()
        );
    }
    for (i, rate) in [0.0, 0.25, 0.5, 0.75, 1.0].iter().enumerate() {
        let y = y0 + PANEL - rate * PANEL;
        let _ = write!(
            svg,
            r#"<text x="{}" y="{y:.1}" text-anchor="end">{}</text>"#,
            x0 - 4.0,
            ["0", ".25", ".5", ".75", "1"][i]
        );
    }
    for (k, (skill, rates)) in curves.iter().enumerate() {
        let colour = SKILL_COLOURS[k % SKILL_COLOURS.len()];
        let line: Vec<String> = rates
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                r.map(|r| format!("{:.1},{:.1}", x0 + tier_x(i), y0 + PANEL - r * PANEL))
            })
            .collect();
        let _ = write!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            line.join(" ")
        );
        legend(
            svg,
            x0 + PANEL - 90.0,
            y0 + 14.0 + 14.0 * k as f64,
            colour,
            skill,
        );
    }
}

fn tier_x(i: usize) -> f64 {
    (i as f64 + 0.5) * PANEL / 4.0
}

fn frame(svg: &mut String, x0: f64, y0: f64, across: &str, up: &str) {
    let _ = write!(
        svg,
        r##"<rect x="{x0}" y="{y0}" width="{PANEL}" height="{PANEL}" fill="none" stroke="#444"/><text x="{}" y="{}" text-anchor="middle">{across}</text><text transform="translate({},{}) rotate(-90)" text-anchor="middle">{up}</text>"##,
        x0 + PANEL / 2.0,
        y0 + PANEL + 30.0,
        x0 - 34.0,
        y0 + PANEL / 2.0
    );
}

fn ticks(svg: &mut String, x0: f64, y0: f64, low: f64, high: f64, label: impl Fn(f64) -> String) {
    for i in 0..=4 {
        let v = low + (high - low) * i as f64 / 4.0;
        let offset = PANEL * i as f64 / 4.0;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text><text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            x0 + offset,
            y0 + PANEL + 14.0,
            label(v),
            x0 - 4.0,
            y0 + PANEL - offset + 4.0,
            label(v)
        );
    }
}

fn legend(svg: &mut String, x: f64, y: f64, colour: &str, name: &str) {
    let _ = write!(
        svg,
        r#"<rect x="{x}" y="{}" width="10" height="10" fill="{colour}"/><text x="{}" y="{y}">{}</text>"#,
        y - 9.0,
        x + 14.0,
        escape(name)
    );
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Per skill (in `order`), its solve rate per tier from `rates[tier][skill]`, the tiers
/// by name.
pub fn curves_of(order: &[&str], rates: &BTreeMap<String, BTreeMap<String, f64>>) -> Curves {
    order
        .iter()
        .map(|skill| {
            let per_tier = Difficulty::ALL.map(|tier| {
                rates
                    .get(tier.as_str())
                    .and_then(|r| r.get(*skill))
                    .copied()
            });
            (skill.to_string(), per_tier)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_a_dot_a_level_and_a_line_a_skill() {
        let points = [
            Point {
                tier: Difficulty::Easy,
                predicted: 1100.0,
                measured: 1150.0,
            },
            Point {
                tier: Difficulty::Expert,
                predicted: 1900.0,
                measured: 1850.0,
            },
        ];
        let curves = vec![(
            "novice".to_string(),
            [Some(0.8), Some(0.3), None, Some(0.0)],
        )];
        let svg = chart("fruit <bots>", &points, &curves);
        assert_eq!(svg.matches("<circle").count(), 2);
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains("fruit &lt;bots&gt;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
}

/// One collection entry on its difficulty curve: its rating, and whether it plays harder
/// than a later entry by more than the margin.
#[derive(Clone, Copy, Debug)]
pub struct CurvePoint {
    pub rating: f64,
    pub flagged: bool,
}

/// A collection's difficulty curve: each entry's rating in collection order, joined by a
/// line, flagged entries red.
pub fn collection_curve(title: &str, points: &[CurvePoint]) -> String {
    let mut svg = String::with_capacity(8 * 1024);
    let width = PANEL + 2.0 * MARGIN;
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {HEIGHT}" width="{width}" height="{HEIGHT}" font-family="sans-serif" font-size="11"><rect width="{width}" height="{HEIGHT}" fill="white"/><text x="{MARGIN}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    let (low, high) = rating_range(points);
    let (x0, y0) = (MARGIN, MARGIN);
    frame(&mut svg, x0, y0, "entry", "rating");
    let step = PANEL / points.len().max(1) as f64;
    let at = |i: usize, p: &CurvePoint| {
        let y = y0 + PANEL - (p.rating - low) / (high - low) * PANEL;
        (x0 + (i as f64 + 0.5) * step, y)
    };
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (x, y) = at(i, p);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = write!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1565c0" stroke-width="2"/>"##,
        line.join(" ")
    );
    for (i, p) in points.iter().enumerate() {
        let (x, y) = at(i, p);
        let colour = if p.flagged { "#c62828" } else { "#1565c0" };
        let _ = write!(
            svg,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{colour}"><title>entry {}: {:.0}</title></circle><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
            i + 1,
            p.rating,
            y0 + PANEL + 14.0,
            i + 1
        );
    }
    rating_labels(&mut svg, low, high, x0, y0);
    legend(
        &mut svg,
        x0 + 8.0,
        y0 + 14.0,
        "#c62828",
        "harder than a later entry",
    );
    svg.push_str("</svg>");
    svg
}

/// The curve's vertical range: the ratings rounded out to hundreds (1000..2000 when flat).
fn rating_range(points: &[CurvePoint]) -> (f64, f64) {
    let (low, high) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.rating), hi.max(p.rating))
    });
    if low < high {
        ((low / 100.0).floor() * 100.0, (high / 100.0).ceil() * 100.0)
    } else {
        (1000.0, 2000.0)
    }
}

/// Five rating labels up the curve's left edge.
fn rating_labels(svg: &mut String, low: f64, high: f64, x0: f64, y0: f64) {
    for i in 0..=4 {
        let v = low + (high - low) * f64::from(i) / 4.0;
        let _ = write!(
            svg,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{v:.0}</text>"#,
            x0 - 4.0,
            y0 + PANEL - PANEL * f64::from(i) / 4.0 + 4.0
        );
    }
}
