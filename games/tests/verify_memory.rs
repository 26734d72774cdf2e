//! Verifications of fruit and skiddy that give up at 1 M states or at the default budget
//! stay within 40 bytes a state expanded at peak (docs/reliability.md), measured as the
//! kernel counts it: the growth of this process's peak resident memory (`VmHWM`) over
//! what it held before, with the service's allocator setting. The only test in its binary, so nothing else
//! runs beside it.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use levelforge_games::{Limits, registry};
use serde_json::{Value, json};

/// `VERIFY_MAX_STATES`'s default (src/config.rs), and a smaller budget: a table that
/// grows at a bad moment shows at one budget and not at the other (skiddy's index at
/// 5/8 full gave 35.6 bytes a state at the default and 43.3 at 1 M).
const BUDGETS: [u64; 2] = [1_000_000, 2_500_000];
/// `MALLOC_MMAP_THRESHOLD_KB`'s default, as src/allocator.rs sets it.
const MMAP_THRESHOLD: i32 = 4096 * 1024;
const MAX_BYTES_PER_STATE: f64 = 40.0;

/// A line of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024.0
}

/// Peak memory per state of one verification that gives up at `budget` states.
fn bytes_per_state(level: &Value, budget: u64) -> f64 {
    // Resets the peak to what is resident now, so that each level is measured alone.
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = status_bytes("VmHWM:");
    let limits = Limits::states(budget);
    let game = level["game"].as_str().unwrap();
    let report = registry::find(game)
        .unwrap()
        .verify(level, &limits)
        .unwrap();
    let grown = status_bytes("VmHWM:") - before;
    // Gave up: the whole budget was expanded.
    let gave_up = report["gave_up"].as_str().unwrap_or_default();
    assert!(gave_up.contains("state budget"), "{report}");
    grown / budget as f64
}

fn fruit(grid: [&str; 8]) -> Value {
    json!({"game": "fruit", "width": 8, "height": 8, "grid": grid})
}

#[test]
fn verifications_that_give_up_peak_under_40_bytes_a_state() {
    // SAFETY: mallopt only sets a parameter of glibc's allocator, which checks it.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD);
    }
    let levels = [
        (
            "fruit, three colours (tests/api/reliability)",
            serde_json::from_str(include_str!(
                "../../tests/api/reliability/fruit_expensive.json"
            ))
            .unwrap(),
        ),
        // The heaviest found: six colours (16-byte keys before the compact layout), a
        // win at depth 7, 3.49 M states known at the cap. 52.2 bytes a state before.
        (
            "fruit, six colours",
            fruit([
                "########", "#a..d.f#", "#oo.a..#", "#..b..d#", "#e..b.o#", "#.o.c#f#", "#o.ce.o#",
                "########",
            ]),
        ),
        // Skiddy's index is at most 5/8 full (3/4 for fruit): its table must still fit.
        (
            "skiddy (tests/api/reliability)",
            serde_json::from_str(include_str!(
                "../../tests/api/reliability/skiddy_expensive.json"
            ))
            .unwrap(),
        ),
    ];
    for (name, level) in levels {
        for budget in BUDGETS {
            let per_state = bytes_per_state(&level, budget);
            eprintln!("{name}: {per_state:.1} bytes a state at {budget} states");
            assert!(
                per_state <= MAX_BYTES_PER_STATE,
                "{name}: {per_state:.1} bytes a state at {budget} states"
            );
        }
    }
}
