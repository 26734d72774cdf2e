//! Tests every registered game through the same seam the service uses:
//! - the golden catalog: a checked-in sample of levels per game and tier whose bytes
//!   (timings aside) must never change — a dependency upgrade that would change shipped
//!   levels fails here. `LEVELFORGE_BLESS=1 cargo test -p levelforge-games --test catalog`
//!   rewrites the files after an intended change (and the game's VERSION must be bumped);
//! - properties over random seeds: generation is deterministic, the level validates, its
//!   solution replays to a win in exactly `par` moves, and the verifier agrees with it.
#![allow(clippy::too_many_lines)] // tests and tools read as one scenario each

use std::path::PathBuf;

use levelforge_games::game::Adapter;
use levelforge_games::template::Template;
use levelforge_games::{Difficulty, Game, Limits, Stop, registry};
use proptest::prelude::*;
use serde_json::Value;

/// Seeds pinned per game and tier in the golden catalog.
const GOLDEN_SEEDS: [u64; 3] = [1, 2, 18_446_744_073_709_551_615];

fn generate(game: &dyn Game, difficulty: Difficulty, seed: u64) -> Value {
    let generated = game
        .generate(difficulty, seed, &Stop::never())
        .unwrap_or_else(|e| panic!("{} {difficulty} seed {seed}: {e}", game.name()));
    serde_json::from_str(&generated.json).expect("level JSON")
}

/// The document without the two wall-clock fields.
fn without_timings(mut document: Value) -> Value {
    let metrics = document["metrics"].as_object_mut().expect("metrics object");
    metrics.remove("generate_ms");
    metrics.remove("solve_ms");
    document
}

/// The served bytes with the two wall-clock values zeroed.
fn zero_timings(json: &str) -> String {
    let mut out = json.to_string();
    for key in ["\"generate_ms\":", "\"solve_ms\":"] {
        let start = out.find(key).expect("timing field") + key.len();
        let digits = out[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        out.replace_range(start..start + digits, "0");
    }
    out
}

fn golden_path(game: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{game}.jsonl"))
}

#[test]
fn golden_catalog_is_unchanged() {
    let bless = std::env::var_os("LEVELFORGE_BLESS").is_some();
    for game in registry::all() {
        let mut lines = Vec::new();
        for difficulty in Difficulty::ALL {
            for seed in GOLDEN_SEEDS {
                let generated = game
                    .generate(difficulty, seed, &Stop::never())
                    .unwrap_or_else(|e| panic!("{} {difficulty} seed {seed}: {e}", game.name()));
                lines.push(zero_timings(&generated.json));
            }
        }
        let actual = lines.join("\n") + "\n";
        let path = golden_path(game.name());
        if bless {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "no golden file {}: run with LEVELFORGE_BLESS=1",
                path.display()
            )
        });
        for (i, (want, got)) in expected.lines().zip(actual.lines()).enumerate() {
            assert_eq!(
                want,
                got,
                "{} golden level {i} changed: shipped levels must never change (bump VERSION and re-bless)",
                game.name()
            );
        }
        assert_eq!(
            expected.lines().count(),
            actual.lines().count(),
            "{} golden size",
            game.name()
        );
    }
}

fn check_level(game: &dyn Game, difficulty: Difficulty, seed: u64) -> Result<(), TestCaseError> {
    let document = generate(game, difficulty, seed);
    let again = generate(game, difficulty, seed);
    prop_assert_eq!(
        without_timings(document.clone()),
        without_timings(again),
        "deterministic"
    );
    prop_assert_eq!(document["game"].as_str(), Some(game.name()));
    prop_assert_eq!(document["seed"].as_u64(), Some(seed));
    let par = document["par"].as_u64().expect("par");
    for key in game.key_metrics() {
        let metric = &document["metrics"][*key];
        // Null is allowed where the game says "none" (e.g. skiddy's combo_par).
        prop_assert!(
            metric.is_number()
                || metric.is_boolean()
                || metric.is_null() && document["metrics"].get(*key).is_some(),
            "key metric `{}` is a number or boolean in metrics: {}",
            key,
            document["metrics"]
        );
    }

    let outcome = game
        .check(&document, &document["solution"])
        .map_err(|e| TestCaseError::fail(format!("solution does not replay: {e}")))?;
    prop_assert_eq!(
        outcome.json["status"].as_str(),
        Some("won"),
        "solution wins: {}",
        outcome.json
    );
    prop_assert_eq!(
        u64::from(outcome.moves_used),
        par,
        "solution uses exactly par moves"
    );

    let stop = Stop::never();
    let report = game
        .verify(
            &document,
            &Limits {
                max_states: 50_000_000,
                stop: &stop,
            },
        )
        .map_err(|e| TestCaseError::fail(format!("generated level fails validation: {e}")))?;
    prop_assert_eq!(report["par"].as_u64(), Some(par), "verifier agrees on par");
    prop_assert_eq!(
        &report["solution"],
        &document["solution"],
        "verifier finds the same solution"
    );
    prop_assert_eq!(
        &report["metrics"]["solution_count"],
        &document["metrics"]["solution_count"],
        "verifier agrees on the solution count"
    );
    let accepted_by = report["accepted_by"].as_array().expect("accepted_by");
    prop_assert!(
        accepted_by
            .iter()
            .any(|d| d.as_str() == Some(difficulty.as_str())),
        "the verifier accepts the level at its own tier: {}",
        report
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_levels_replay_and_verify(seed in any::<u64>(), tier in 0usize..4) {
        for game in registry::all() {
            check_level(*game, Difficulty::ALL[tier], seed)?;
        }
    }
}

/// The template game (not registered) keeps the same contract, so a game copied from it
/// starts out passing this file's properties.
#[test]
fn the_template_game_keeps_the_contract_at_every_tier() {
    let template: &dyn Game = &Adapter::<Template>::NEW;
    assert!(registry::find(template.name()).is_none(), "never served");
    for difficulty in Difficulty::ALL {
        for seed in [1, 2, 3, u64::MAX] {
            check_level(template, difficulty, seed)
                .unwrap_or_else(|e| panic!("template {difficulty} seed {seed}: {e}"));
        }
    }
    let bench = template.bench_level();
    let limits = Limits::states(1_000_000);
    assert_eq!(template.verify(&bench, &limits).unwrap()["solvable"], true);
}
