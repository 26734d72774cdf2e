//! Fruit verifications at the service's default state budget stay within 40 bytes a
//! state expanded at peak (docs/reliability.md), measured as the kernel counts it: the
//! growth of this process's peak resident memory (`VmHWM`) over what it held before,
//! with the service's allocator setting. The only test in its binary, so nothing else
//! runs beside it.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use levelforge_games::{Limits, Stop, registry};
use serde_json::{Value, json};

/// `VERIFY_MAX_STATES`'s default (src/config.rs).
const DEFAULT_BUDGET: u64 = 2_500_000;
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

/// Peak memory per state of one verification that gives up at the default budget.
fn bytes_per_state(level: &Value) -> f64 {
    // Resets the peak to what is resident now, so that each level is measured alone.
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = status_bytes("VmHWM:");
    let stop = Stop::never();
    let limits = Limits {
        max_states: DEFAULT_BUDGET,
        stop: &stop,
    };
    let report = registry::find("fruit")
        .unwrap()
        .verify(level, &limits)
        .unwrap();
    let grown = status_bytes("VmHWM:") - before;
    // Gave up: the whole budget was expanded.
    let gave_up = report["gave_up"].as_str().unwrap_or_default();
    assert!(gave_up.contains("state budget"), "{report}");
    grown / DEFAULT_BUDGET as f64
}

fn fruit(grid: [&str; 8]) -> Value {
    json!({"game": "fruit", "width": 8, "height": 8, "grid": grid})
}

#[test]
fn fruit_verifications_at_the_default_budget_peak_under_40_bytes_a_state() {
    // SAFETY: mallopt only sets a parameter of glibc's allocator, which checks it.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD);
    }
    let levels = [
        (
            "three colours (tests/api/reliability)",
            serde_json::from_str(include_str!(
                "../../tests/api/reliability/fruit_expensive.json"
            ))
            .unwrap(),
        ),
        // The heaviest found: six colours (16-byte keys before the compact layout), a
        // win at depth 7, 3.49 M states known at the cap. 52.2 bytes a state before.
        (
            "six colours",
            fruit([
                "########", "#a..d.f#", "#oo.a..#", "#..b..d#", "#e..b.o#", "#.o.c#f#", "#o.ce.o#",
                "########",
            ]),
        ),
    ];
    for (name, level) in levels {
        let per_state = bytes_per_state(&level);
        eprintln!("{name}: {per_state:.1} bytes a state at {DEFAULT_BUDGET} states");
        assert!(
            per_state <= MAX_BYTES_PER_STATE,
            "{name}: {per_state:.1} bytes a state"
        );
    }
}
