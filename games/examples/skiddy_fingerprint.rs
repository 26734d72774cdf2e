//! Skiddy's output, for checking that a solver change alters nothing: every tier of
//! seeds 1..=N (default 300) as generated, and the benchmark level's verify report, with
//! the timing fields removed. `bench K` instead analyses the benchmark level K times and
//! prints each time (for callgrind and quick timings).
//!
//! `cargo run --release -p levelforge-games --example skiddy_fingerprint > before.txt`

use std::time::Instant;

use levelforge_games::{Difficulty, Limits, registry};
use serde_json::Value;

fn without_timings(mut document: Value) -> Value {
    if let Some(metrics) = document.get_mut("metrics").and_then(Value::as_object_mut) {
        metrics.remove("generate_ms");
        metrics.remove("solve_ms");
    }
    document
}

/// CPU time of this process: less moved than wall time by the other work on the machine
/// (Linux only, where the crate links libc; elsewhere only wall time is shown).
#[cfg(target_os = "linux")]
fn cpu_seconds() -> Option<f64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    (status == 0).then_some(now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9)
}

#[cfg(not(target_os = "linux"))]
fn cpu_seconds() -> Option<f64> {
    None
}

fn main() {
    let game = registry::find("skiddy").expect("skiddy is registered");
    let limits = Limits::states(u64::MAX);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        let runs: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
        let level = game.bench_level();
        for _ in 0..runs {
            let (started, cpu) = (Instant::now(), cpu_seconds());
            let report = game
                .verify(&level, &limits)
                .expect("the bench level is valid");
            let seconds = started.elapsed().as_secs_f64();
            let states = &report["metrics"]["states"];
            match cpu_seconds().zip(cpu) {
                Some((end, start)) => {
                    let cpu = end - start;
                    println!("{seconds:.4} s wall, {cpu:.4} s cpu, states {states}");
                }
                None => println!("{seconds:.4} s wall, states {states}"),
            }
        }
        return;
    }
    let seeds: u64 = args.first().and_then(|n| n.parse().ok()).unwrap_or(300);
    for difficulty in Difficulty::ALL {
        for seed in 1..=seeds {
            match game.generate(difficulty, seed, limits.stop) {
                Ok(generated) => {
                    let document: Value = serde_json::from_str(&generated.json).unwrap();
                    println!("{}", without_timings(document));
                }
                Err(error) => println!("{difficulty} {seed}: {error}"),
            }
        }
    }
    let report = game.verify(&game.bench_level(), &limits).unwrap();
    println!("{}", without_timings(report));
}
