//! Instruction counts (callgrind, through gungraun) of the solver hot paths: each game's
//! fixed heavy analysis and one cold generation per game × tier. Unlike wall-clock time,
//! a count is the same on a busy machine as on a quiet one, so a 5 % growth is a real
//! regression. `scripts/instructions.sh` runs this and compares it with the committed
//! baseline (`benches/instructions.baseline.json`); see docs/benchmarks.md.
//!
//! Only the benchmark function is counted: the level documents are built in `setup`.

use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};
use levelforge_games::{Difficulty, Game, Limits, Stop, registry};
use serde_json::Value;

fn game(name: &str) -> &'static dyn Game {
    registry::find(name).expect("a registered game")
}

fn heavy_level(name: &str) -> (&'static dyn Game, Value) {
    let game = game(name);
    (game, game.bench_level())
}

// The verification solver on the game's fixed heavy level (`Puzzle::bench_level`).
// (Plain comments: gungraun's attribute takes no doc attribute.)
#[library_benchmark]
#[bench::fruit(args = ("fruit"), setup = heavy_level)]
#[bench::skiddy(args = ("skiddy"), setup = heavy_level)]
#[bench::hashi(args = ("hashi"), setup = heavy_level)]
#[bench::tetropica(args = ("tetropica"), setup = heavy_level)]
#[bench::hopper(args = ("hopper"), setup = heavy_level)]
fn analyze((game, level): (&'static dyn Game, Value)) -> Value {
    let stop = Stop::never();
    let limits = Limits {
        max_states: u64::MAX,
        stop: &stop,
    };
    black_box(
        game.verify(black_box(&level), &limits)
            .expect("a valid level"),
    )
}

/// The game with its predicted-difficulty model already parsed: a server parses it once
/// per process, so the parse is not part of any one generation.
fn warmed(name: &str, difficulty: Difficulty) -> (&'static dyn Game, Difficulty) {
    let game = game(name);
    let _ = game.prior_model();
    (game, difficulty)
}

// One cold generation of seed 1, the whole loop (candidates, solving, acceptance).
// Seed 1 for every key: fixed before anything was measured, not picked for its cost.
#[library_benchmark]
#[bench::fruit_easy(args = ("fruit", Difficulty::Easy), setup = warmed)]
#[bench::fruit_medium(args = ("fruit", Difficulty::Medium), setup = warmed)]
#[bench::fruit_hard(args = ("fruit", Difficulty::Hard), setup = warmed)]
#[bench::fruit_expert(args = ("fruit", Difficulty::Expert), setup = warmed)]
#[bench::skiddy_easy(args = ("skiddy", Difficulty::Easy), setup = warmed)]
#[bench::skiddy_medium(args = ("skiddy", Difficulty::Medium), setup = warmed)]
#[bench::skiddy_hard(args = ("skiddy", Difficulty::Hard), setup = warmed)]
#[bench::skiddy_expert(args = ("skiddy", Difficulty::Expert), setup = warmed)]
#[bench::hashi_easy(args = ("hashi", Difficulty::Easy), setup = warmed)]
#[bench::hashi_medium(args = ("hashi", Difficulty::Medium), setup = warmed)]
#[bench::hashi_hard(args = ("hashi", Difficulty::Hard), setup = warmed)]
#[bench::hashi_expert(args = ("hashi", Difficulty::Expert), setup = warmed)]
#[bench::tetropica_easy(args = ("tetropica", Difficulty::Easy), setup = warmed)]
#[bench::tetropica_medium(args = ("tetropica", Difficulty::Medium), setup = warmed)]
#[bench::tetropica_hard(args = ("tetropica", Difficulty::Hard), setup = warmed)]
#[bench::tetropica_expert(args = ("tetropica", Difficulty::Expert), setup = warmed)]
#[bench::hopper_easy(args = ("hopper", Difficulty::Easy), setup = warmed)]
#[bench::hopper_medium(args = ("hopper", Difficulty::Medium), setup = warmed)]
#[bench::hopper_hard(args = ("hopper", Difficulty::Hard), setup = warmed)]
#[bench::hopper_expert(args = ("hopper", Difficulty::Expert), setup = warmed)]
fn generate((game, difficulty): (&'static dyn Game, Difficulty)) -> String {
    let generated = game
        .generate(difficulty, black_box(1), &Stop::never())
        .expect("seed 1 has a level in every tier");
    black_box(generated.json)
}

library_benchmark_group!(name = solvers, benchmarks = [analyze, generate]);

main!(library_benchmark_groups = solvers);
