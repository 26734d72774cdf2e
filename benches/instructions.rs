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

// One cold generation of seed 1, the whole loop (candidates, solving, acceptance).
// Seed 1 for every key: fixed before anything was measured, not picked for its cost.
#[library_benchmark]
#[bench::fruit_easy("fruit", Difficulty::Easy)]
#[bench::fruit_medium("fruit", Difficulty::Medium)]
#[bench::fruit_hard("fruit", Difficulty::Hard)]
#[bench::fruit_expert("fruit", Difficulty::Expert)]
#[bench::skiddy_easy("skiddy", Difficulty::Easy)]
#[bench::skiddy_medium("skiddy", Difficulty::Medium)]
#[bench::skiddy_hard("skiddy", Difficulty::Hard)]
#[bench::skiddy_expert("skiddy", Difficulty::Expert)]
#[bench::hashi_easy("hashi", Difficulty::Easy)]
#[bench::hashi_medium("hashi", Difficulty::Medium)]
#[bench::hashi_hard("hashi", Difficulty::Hard)]
#[bench::hashi_expert("hashi", Difficulty::Expert)]
#[bench::tetropica_easy("tetropica", Difficulty::Easy)]
#[bench::tetropica_medium("tetropica", Difficulty::Medium)]
#[bench::tetropica_hard("tetropica", Difficulty::Hard)]
#[bench::tetropica_expert("tetropica", Difficulty::Expert)]
#[bench::hopper_easy("hopper", Difficulty::Easy)]
#[bench::hopper_medium("hopper", Difficulty::Medium)]
#[bench::hopper_hard("hopper", Difficulty::Hard)]
#[bench::hopper_expert("hopper", Difficulty::Expert)]
fn generate(name: &str, difficulty: Difficulty) -> String {
    let game = game(name);
    let generated = game
        .generate(difficulty, black_box(1), &Stop::never())
        .expect("seed 1 has a level in every tier");
    black_box(generated.json)
}

library_benchmark_group!(name = solvers, benchmarks = [analyze, generate]);

main!(library_benchmark_groups = solvers);
