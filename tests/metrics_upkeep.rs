//! Histogram samples do not pile up in memory when nobody scrapes `/metrics`. Its own test
//! binary: it reads the allocator's process-wide counters, which other tests would move.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::time::{Duration, Instant};

use levelforge::metrics::{RequestSeries, UPKEEP_INTERVAL, handle};

/// Bytes the C allocator has handed out and not had back, in every arena.
fn heap_in_use() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's counters.
    let info = unsafe { libc::mallinfo2() };
    info.uordblks + info.hblkhd
}

#[test]
fn unscraped_histogram_samples_are_folded_into_buckets() {
    const REQUESTS: u64 = 2_000_000;
    let series = RequestSeries::new("/upkeep-test", "GET", 200);
    series.record(Instant::now()); // the recorder, its series and the upkeep thread exist
    let before = heap_in_use();
    // Kept as raw samples, 2 M requests would hold over 16 MB: sent in bursts over a few
    // upkeep intervals, then a trickle, as a server's traffic goes on (freed sample blocks
    // are reclaimed once later recordings let the epoch-based collector advance).
    for _ in 0..20 {
        for _ in 0..REQUESTS / 20 {
            series.record(Instant::now());
        }
        std::thread::sleep(UPKEEP_INTERVAL / 8);
    }
    // At least three upkeep intervals; on a busy machine, where the upkeep thread may run
    // late, up to thirty before the heap is judged.
    let mut trickle = 0;
    let quiet = Instant::now();
    let folded = || heap_in_use().saturating_sub(before) < 2 << 20;
    while quiet.elapsed() < UPKEEP_INTERVAL * 3
        || (!folded() && quiet.elapsed() < UPKEEP_INTERVAL * 30)
    {
        series.record(Instant::now());
        trickle += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
    let kept = heap_in_use().saturating_sub(before);
    assert!(
        kept < 2 << 20,
        "{kept} bytes still held after upkeep for {REQUESTS} samples"
    );
    let count = format!(
        "levelforge_http_request_duration_seconds_count{{route=\"/upkeep-test\",method=\"GET\",status=\"200\"}} {}",
        REQUESTS + trickle + 1
    );
    assert!(
        handle().render().contains(&count),
        "every sample counted once: {count}"
    );
}
