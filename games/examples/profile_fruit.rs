//! Generates fruit hard levels in a loop, for profilers (`perf record`).
//! `cargo run -p levelforge-games --release --example profile_fruit -- hard 200`

use levelforge_games::{Difficulty, Stop, registry};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let difficulty: Difficulty = args.get(1).map_or("hard", String::as_str).parse().unwrap();
    let seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let game = registry::find("fruit").unwrap();
    let started = std::time::Instant::now();
    let mut states = 0;
    for seed in 1..=seeds {
        states += game
            .generate(difficulty, seed, &Stop::never())
            .unwrap()
            .summary
            .states;
    }
    println!(
        "{seeds} levels in {:?} ({states} states in accepted analyses)",
        started.elapsed()
    );
}
