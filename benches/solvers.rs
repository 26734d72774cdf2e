//! Solver and generator benchmarks for every registered game.
//!
//! - `analyze/<game>`: the verification solver on that game's expert level for seed 1
//!   (a fixed, heavy level), through the same `verify` the HTTP route uses.
//! - `generate/<game>/<tier>`: one cold generation (candidates, solving, acceptance), the
//!   seed changing every iteration so that no single lucky seed is measured.
//!
//! `cargo bench --bench solvers` (add `-- fruit` to filter).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use levelforge_games::{Difficulty, Limits, Stop, registry};
use serde_json::Value;

fn analyze(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    for game in registry::all() {
        let generated = game
            .generate(Difficulty::Expert, 1, &Stop::never())
            .expect("expert level");
        let document: Value = serde_json::from_str(&generated.json).unwrap();
        let stop = Stop::never();
        let limits = Limits {
            max_states: u64::MAX,
            stop: &stop,
        };
        group.bench_function(game.name(), |b| {
            b.iter(|| black_box(game.verify(&document, &limits).unwrap()))
        });
    }
    group.finish();
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    for game in registry::all() {
        for difficulty in Difficulty::ALL {
            let mut seed = 0u64;
            group.bench_function(format!("{}/{difficulty}", game.name()), |b| {
                b.iter(|| {
                    seed += 1;
                    black_box(game.generate(difficulty, seed, &Stop::never()).unwrap())
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = analyze, generate
}
criterion_main!(benches);
