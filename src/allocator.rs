//! The C allocator's setting that bounds the memory a busy server keeps.
//!
//! glibc raises its mmap threshold each time a mapped block is freed (up to 32 MiB), so
//! after the first few solver tables every later one comes from its per-thread arenas
//! (up to eight per core), and each arena then keeps the largest tables that ran in it
//! after they are freed. A fixed threshold keeps large tables in mappings of their own,
//! which go back to the kernel when freed; the trim threshold, fixed at twice it (glibc's
//! own ratio), lets an arena keep that much free memory at its top, so that the tables
//! under the threshold are reused instead of faulted in again on every generation (at
//! half of it, fruit's solver spent a sixth of its time in page faults). Our own code: no
//! crate wraps `mallopt`, and a replacement allocator (mimalloc) measured far worse:
//! docs/benchmarks.md.

/// Makes every allocation of at least `bytes` a mapping of its own, returned to the kernel
/// when freed, and has each arena trim its top beyond `2 * bytes` (glibc's adaptive pair
/// would allow up to 64 MiB). `0` leaves glibc's adaptive defaults. A no-op on other C
/// libraries.
pub fn set_mmap_threshold(bytes: usize) -> anyhow::Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    for (parameter, value) in [
        (libc::M_MMAP_THRESHOLD, bytes),
        (libc::M_TRIM_THRESHOLD, bytes * 2),
    ] {
        let value = i32::try_from(value)?;
        // SAFETY: mallopt only sets a parameter of glibc's allocator, which checks it.
        let accepted = unsafe { libc::mallopt(parameter, value) };
        anyhow::ensure!(
            accepted == 1,
            "glibc refused malloc parameter {parameter} = {value}"
        );
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Bytes glibc holds in mappings of their own.
    fn mapped_bytes() -> usize {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        unsafe { libc::mallinfo2() }.hblkhd
    }

    #[test]
    fn freed_tables_do_not_move_the_threshold() {
        const TABLE: usize = 8 << 20;
        set_mmap_threshold(1 << 20).unwrap();
        for _ in 0..2 {
            let before = mapped_bytes();
            let table = std::hint::black_box(vec![1u8; TABLE]);
            // With glibc's adaptive threshold the second table would come from an arena
            // (the first one's free raised the threshold to its size) and stay there.
            assert!(
                mapped_bytes() >= before + TABLE,
                "a table of its own mapping"
            );
            drop(table);
        }
    }
}
