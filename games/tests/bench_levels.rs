//! Every game's fixed benchmark level (`levelforge bench`) is a valid, solvable level
//! at least as heavy for its solver as the expert level of seed 1.

use levelforge_games::{Difficulty, Limits, registry};

#[test]
fn every_bench_level_is_valid_and_solvable() {
    let limits = Limits::states(50_000_000);
    for game in registry::all() {
        let level = game.bench_level();
        assert_eq!(level["game"], game.name());
        let report = game
            .verify(&level, &limits)
            .unwrap_or_else(|e| panic!("{}: {e}", game.name()));
        assert_eq!(report["solvable"], true, "{}: {report}", game.name());
        let states = report["metrics"]["states"].as_u64().unwrap();
        let seed_1 = game.generate(Difficulty::Expert, 1, limits.stop).unwrap();
        assert!(
            states >= seed_1.summary.states,
            "{}: {states} states, expert seed 1 has {}",
            game.name(),
            seed_1.summary.states
        );
    }
}
