//! Generates one level of a game and tier with seed 1, as the `generate` benchmark of
//! benches/instructions.rs does, and prints it: a fixed workload for
//! `valgrind --tool=callgrind --toggle-collect='*Game>::generate'`.
//!
//! `cargo run --release -p levelforge-games --example generate_once -- fruit hard`

use levelforge_games::{Difficulty, Stop, registry};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "fruit".into());
    let difficulty: Difficulty = args
        .next()
        .unwrap_or_else(|| "hard".into())
        .parse()
        .unwrap_or_else(|_| {
            eprintln!("a tier is easy, medium, hard or expert");
            std::process::exit(2);
        });
    let Some(game) = registry::find(&name) else {
        eprintln!("no game `{name}`; games: {:?}", registry::names());
        std::process::exit(2);
    };
    // Parsed once per process, as the instruction bench's setup does.
    let _ = game.prior_model();
    match game.generate(difficulty, 1, &Stop::never()) {
        Ok(generated) => println!("{}", generated.json),
        Err(e) => println!("error: {e}"),
    }
}
