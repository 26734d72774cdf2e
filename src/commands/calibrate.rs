//! `levelforge calibrate`: refits each game's predicted-difficulty model
//! (`levelforge_games::prior`) to the ratings simulated players measure, on levels of
//! seeds that `levelforge simulate` never plays, so that its `prior_spearman` is always
//! measured on levels held out of the fit (docs/difficulty.md).

use anyhow::{Context, bail};
use levelforge_games::prior::{self, PriorModel};
use serde_json::json;

use crate::commands::simulate::{self, Setting};
use crate::config::CalibrateArgs;

/// The first seed of the levels a model is fitted on: far from `simulate`'s 1..=N.
pub const FIRST_SEED: u64 = 1_000_001;
/// The ridge penalty on the standardised figures: enough to keep correlated figures
/// (states and dead ends, say) from cancelling out with large weights.
pub const RIDGE: f64 = 0.05;

pub fn run(args: &CalibrateArgs) -> anyhow::Result<()> {
    let setting = Setting {
        levels: args.levels,
        bots: args.bots as usize,
        seed: args.seed,
    };
    for game in simulate::games_named(args.game.as_deref())? {
        let model = calibrate(game, &setting)?;
        // Through a `Value`, so that the raw `fitted` part is indented with the rest.
        let json = serde_json::to_string_pretty(&serde_json::to_value(&model)?)? + "\n";
        match &args.write {
            Some(dir) => {
                let path = dir.join(game.name()).join("prior.json");
                if !path.exists() {
                    bail!(
                        "{} does not exist: run from the repository root with `--write games/src`",
                        path.display()
                    );
                }
                std::fs::write(&path, json)
                    .with_context(|| format!("writing {}", path.display()))?;
                eprintln!("{}: wrote {}", game.name(), path.display());
            }
            None => print!("{json}"),
        }
    }
    Ok(())
}

/// One game's model, fitted to the bots' ratings of its levels from [`FIRST_SEED`] on.
pub fn calibrate(
    game: &dyn levelforge_games::Game,
    setting: &Setting,
) -> anyhow::Result<PriorModel> {
    let (levels, measured) = simulate::measure(game, setting, FIRST_SEED)?;
    let report = simulate::Report::new(game.name(), setting, &levels, &measured, 0.0);
    let figures: Vec<_> = levels.iter().map(|l| l.figures.clone()).collect();
    let ratings: Vec<f64> = measured.ratings.iter().map(|r| r.rating).collect();
    let mut model = prior::fit(&figures, &ratings, RIDGE)
        .with_context(|| format!("{}: too few levels to fit a model", game.name()))?;
    let predicted: Vec<f64> = figures.iter().map(|f| model.predict(f)).collect();
    for tier in levelforge_games::Difficulty::ALL {
        let of_tier: Vec<f64> = levels
            .iter()
            .zip(&predicted)
            .filter(|(l, _)| l.tier == tier)
            .map(|(_, &p)| p)
            .collect();
        if !of_tier.is_empty() {
            let mean = of_tier.iter().sum::<f64>() / of_tier.len() as f64;
            model.tier_means.insert(tier.to_string(), mean.round());
        }
    }
    let fitted = json!({
        "command": format!(
            "levelforge calibrate --game {} --levels {} --bots {} --seed {}",
            game.name(), setting.levels, setting.bots, setting.seed
        ),
        "levels": levels.len(),
        "first_seed": FIRST_SEED,
        "ridge": RIDGE,
        "spearman_in_fit": prior::spearman(&predicted, &ratings).map(|r| (r * 1000.0).round() / 1000.0),
        // The dashboard's chart draws these beside the players' ratings.
        "solve_rates": report.solve_rates(),
    });
    model.fitted = Some(serde_json::value::to_raw_value(&fitted)?);
    Ok(model)
}
