//! Prints every level a game generates for seeds 1..=N in every tier, one JSON per line,
//! with the two wall-clock fields zeroed (a key with no level prints its error instead).
//! Piped into `sha256sum`, it fingerprints a game's whole output: a performance change
//! must leave it identical.
//!
//! `cargo run --release -p levelforge-games --example fingerprint -- fruit 1000 | sha256sum`

use levelforge_games::{Difficulty, Stop, registry};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "fruit".into());
    let seeds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let Some(game) = registry::find(&name) else {
        eprintln!("no game `{name}`; games: {:?}", registry::names());
        std::process::exit(2);
    };
    for difficulty in Difficulty::ALL {
        for seed in 1..=seeds {
            match game.generate(difficulty, seed, &Stop::never()) {
                Ok(generated) => println!("{}", zero_timings(&generated.json)),
                Err(e) => println!("{difficulty} {seed}: {e}"),
            }
        }
    }
}

/// The level bytes with `generate_ms` and `solve_ms` set to 0.
fn zero_timings(json: &str) -> String {
    let mut out = json.to_string();
    for key in ["\"generate_ms\":", "\"solve_ms\":"] {
        if let Some(at) = out.find(key) {
            let start = at + key.len();
            let digits = out[start..].bytes().take_while(u8::is_ascii_digit).count();
            out.replace_range(start..start + digits, "0");
        }
    }
    out
}
