//! Runs a game's solver on its fixed heavy level (`Game::bench_level`) `RUNS` times and
//! prints the verdict: a small, fixed workload for `valgrind --tool=callgrind`, whose
//! instruction counts stay repeatable on a loaded machine where wall-clock times do not.
//!
//! `cargo run --release -p levelforge-games --example bench_level -- fruit 1`

use levelforge_games::{Limits, registry};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "fruit".into());
    let runs: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let Some(game) = registry::find(&name) else {
        eprintln!("no game `{name}`; games: {:?}", registry::names());
        std::process::exit(2);
    };
    let level = game.bench_level();
    let limits = Limits::states(u64::MAX);
    for _ in 0..runs {
        match game.verify(&level, &limits) {
            Ok(report) => println!("{report}"),
            Err(e) => println!("error: {e}"),
        }
    }
}
