//! Large solver tables on transparent huge pages where the system offers them (Linux with
//! THP in `madvise` or `always` mode). One 2 MiB page stands for 512 ordinary ones, so a
//! state table of tens of megabytes costs a few dozen page faults instead of thousands,
//! and its random probes rarely miss the TLB. Only a hint: contents and results are the
//! same with or without it.

/// The huge page size the advice aims at (x86_64 and aarch64 with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// `len` zeros of an integer type: allocated zeroed, which leaves fresh pages untouched
/// so that the advice still applies to them, then advised.
pub fn zeroed<T: Copy + Default>(len: usize) -> Vec<T> {
    let v = vec![T::default(); len];
    advise(&v);
    v
}

/// `len` copies of `value`, written after the advice.
pub fn filled<T: Copy>(len: usize, value: T) -> Vec<T> {
    let mut v = with_capacity(len);
    v.resize(len, value);
    v
}

/// An empty vector with room for `capacity` items, advised before anything is written.
pub fn with_capacity<T>(capacity: usize) -> Vec<T> {
    let v = Vec::with_capacity(capacity);
    advise(&v);
    v
}

/// Asks the kernel to back the whole 2 MiB-aligned part of the vector's buffer with huge
/// pages; buffers under two huge pages are left alone.
fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity() * size_of::<T>();
    if bytes < 2 * HUGE_PAGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let base = v.as_ptr() as usize;
        let start = base.next_multiple_of(HUGE_PAGE);
        let end = (base + bytes) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: the range lies inside the vector's own allocation, and
            // MADV_HUGEPAGE only changes how the kernel backs those pages, never what
            // they hold; a failure (no THP support) leaves ordinary pages.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}
