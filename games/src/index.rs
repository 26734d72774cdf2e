//! The dense state index the state-graph solvers share (fruit, hopper, skiddy): states
//! live once, by id, in the solver's own table of keys, and the index holds only ids.
//!
//! Open addressing with linear probing: a slot is 4 bytes, the key's id + 1 in the low
//! bits and some bits of its hash (a tag) above them, 0 when empty. A probe compares tags
//! and reads the key only on a match, which is almost only the key itself. Probes run on
//! past the last home slot into a spill area instead of wrapping to the first, and the
//! area's last slot stays empty, so a probe needs no test for the end. The table is
//! at most 75 % full and grows by refilling a larger table from the keys (eight times
//! the size while under 128 KiB, twice while under 16 MiB, then a quarter more), the old
//! one freed first: from 16 MiB on a state costs 5.3 to 6.7 bytes here, nothing is
//! allocated per state, and two tables are never held at once (with a general hash map,
//! that was the peak of a large analysis).
//!
//! Ids are whatever the caller appends next, so what a solver finds never depends on the
//! hash function: only the speed does.

use crate::memory;

pub struct Index {
    /// `LINE - 1` spare slots in front, so that `slots[first]` starts a cache line; from
    /// there the home slots, then the spill area.
    slots: Vec<u32>,
    first: usize,
    /// Home slots in the table, a whole number of lines (any number: the home slot is a
    /// multiply, not a mask).
    size: u64,
    /// Home slots and spill area: the table's last slot, `slots[first + end - 1]`, is
    /// never filled (see [`Table::intern`]).
    end: usize,
    /// The tag part of a slot; the id part is the rest.
    tag_mask: u32,
    /// Keys held before the next one makes the table grow: up to 75 % full.
    room: usize,
}

/// Slots per 64-byte cache line.
const LINE: usize = 16;
/// The default table, in lines (16 KiB): no refill before 3,072 keys.
const DEFAULT_LINES: usize = 256;
/// The smallest table [`Index::with_room`] gives, in lines.
const MIN_LINES: usize = 4;
/// The spill area after the home slots, in lines, at most (4 KiB); smaller tables have
/// an eighth of their lines more, at least one. Keys spill from the cluster that runs
/// past the last home slot; one that would fill the area's last slot makes the area
/// twice as large first: at most 75 % full, a cluster of a few hundred slots is needed
/// for that.
const SPILL_LINES: usize = 64;
/// Tables under this many slots (128 KiB) grow eightfold, larger ones twofold: a search
/// that starts small and finds thousands of states refills a small table a few times
/// instead of ten, and the size a large one ends at is the same.
const FAST_GROWTH: u64 = 1 << 15;
/// Tables of this many slots (16 MiB, 3.1 M keys) and more grow by a quarter: doubling
/// left a large table between 37.5 % and 75 % full, and its size jumps with the states a
/// search happens to reach (at a verification's budget, a third of a fruit analysis's
/// memory), where a quarter keeps it 60 % to 75 % full for a refill every quarter more
/// states. Smaller tables double: skiddy's bench level (1.16 M states) refilled twice
/// more with quarters from 4 MiB on (1.799 G instructions against 1.737 G).
const FINE_GROWTH: u64 = 1 << 22;

/// Folded multiplies over the words of a key: the full 128-bit product mixes every key
/// bit into both halves (a plain multiply only carries bits upwards, and the home slot
/// comes from the top bits).
#[inline(always)]
pub fn hash_words(words: &[u64]) -> u64 {
    let mut h = words[0] ^ 0x243F_6A88_85A3_08D3;
    for &w in &words[1..] {
        h = fold(h, 0x9E37_79B9_7F4A_7C15) ^ w;
    }
    fold(h, 0xD6E8_FEB8_6659_FD93)
}

/// [`hash_words`] of two words in one multiply (each word salted, as wyhash does): for
/// keys of two words looked up millions of times.
#[inline(always)]
pub fn hash_two(a: u64, b: u64) -> u64 {
    fold(a ^ 0x243F_6A88_85A3_08D3, b ^ 0x9E37_79B9_7F4A_7C15)
}

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    product as u64 ^ (product >> 64) as u64
}

impl Default for Index {
    fn default() -> Self {
        Index::with_lines(DEFAULT_LINES)
    }
}

impl Index {
    /// Room for `keys` keys before the first growth: a caller that expects many states
    /// saves the refills on the way, one that runs many small searches zeroes less.
    /// Sizes are a power of two of lines (and grow from there by the same steps), so that
    /// a table of a given number of keys has the same size however it started.
    pub fn with_room(keys: usize) -> Index {
        let lines = (keys / 3 * 4).div_ceil(LINE).max(MIN_LINES);
        Index::with_lines(lines.next_power_of_two())
    }

    fn with_lines(lines: usize) -> Index {
        Index::with_spill(lines, (lines / 8).clamp(1, SPILL_LINES))
    }

    fn with_spill(lines: usize, spill_lines: usize) -> Index {
        let size = lines * LINE;
        let end = size + spill_lines * LINE;
        let slots: Vec<u32> = memory::zeroed(end + LINE - 1);
        let misalignment = slots.as_ptr() as usize % (LINE * size_of::<u32>());
        let first = (LINE - misalignment / size_of::<u32>()) % LINE;
        // Ids stay below `room`, under `size`: the id part needs the bits of `size`.
        let id_bits = usize::BITS - size.leading_zeros();
        Index {
            slots,
            first,
            size: size as u64,
            end,
            tag_mask: !(u32::MAX >> 32u32.saturating_sub(id_bits)),
            room: size / 4 * 3,
        }
    }

    /// The home slot (counted from `first`) of a key with this hash: anywhere in the
    /// table, not the first of its line, since probes from a line's first slot queue
    /// behind every key of that line (8.5 probes a lookup against 2-3 in skiddy); with 16
    /// slots a line, a probe rarely runs past the line that [`Index::prefetch`] fetched.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        home(hash, self.size)
    }

    /// The tag of a key with this hash: low hash bits, independent of the home slot.
    #[inline(always)]
    fn tag(&self, hash: u64) -> u32 {
        tag(hash, self.tag_mask)
    }

    /// The id of the key with this hash for which `is_key` holds, or `None`.
    #[inline(always)]
    pub fn find(&self, hash: u64, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        let tag = self.tag(hash);
        let slots = self.slots();
        let mut i = self.home(hash);
        loop {
            // SAFETY: as in `Table::intern`, `i` stops at an empty slot inside the table.
            let slot = unsafe { *slots.get_unchecked(i) };
            if slot == 0 {
                return None;
            }
            let untagged = slot ^ tag;
            if untagged & self.tag_mask == 0 && is_key(untagged - 1) {
                return Some(untagged - 1);
            }
            i += 1;
        }
    }

    /// The id of the key with this hash for which `is_key` holds, or, when there is
    /// none, `new_id` entered as its id; the flag says whether it was new. `new_id` is
    /// the number of keys so far (the caller appends the key after a `true`), and
    /// `hash_of` gives any earlier key's hash by id, for refilling a larger table.
    #[inline(always)]
    pub fn intern(
        &mut self,
        hash: u64,
        new_id: u32,
        is_key: impl Fn(u32) -> bool,
        hash_of: impl Fn(u32) -> u64,
    ) -> (u32, bool) {
        if new_id as usize >= self.room {
            self.grow((0..new_id).map(&hash_of));
        }
        self.intern_in_room(hash, new_id, is_key, hash_of)
    }

    /// Grows the table now if `more` keys after the `keys` held could fill it, so that
    /// the next `more` lookups may skip the check, by [`Index::intern_in_room`].
    #[inline(always)]
    pub fn make_room(&mut self, keys: u32, more: usize, hash_of: impl Fn(u32) -> u64) {
        if keys as usize + more > self.room {
            self.grow((0..keys).map(&hash_of));
        }
    }

    /// [`Index::intern`] without the room check, for a caller that made room with
    /// [`Index::make_room`].
    #[inline(always)]
    pub fn intern_in_room(
        &mut self,
        hash: u64,
        new_id: u32,
        is_key: impl Fn(u32) -> bool,
        hash_of: impl Fn(u32) -> u64,
    ) -> (u32, bool) {
        match self.table().intern(hash, new_id, &is_key) {
            Some(interned) => interned,
            None => self.intern_spilled(hash, new_id, is_key, hash_of),
        }
    }

    /// [`Index::intern`] of a key that found the spill area full: out of line, so that
    /// the lookup keeps nothing for it.
    #[cold]
    #[inline(never)]
    fn intern_spilled(
        &mut self,
        hash: u64,
        new_id: u32,
        is_key: impl Fn(u32) -> bool,
        hash_of: impl Fn(u32) -> u64,
    ) -> (u32, bool) {
        loop {
            self.widen_spill((0..new_id).map(&hash_of));
            if let Some(interned) = self.table().intern(hash, new_id, &is_key) {
                return interned;
            }
        }
    }

    /// [`Index::intern`] for each of `batch` (with its `hashes`) in order, its id written
    /// to `ids`; new keys are appended to `keys`, the caller's table of every key so far.
    /// The lookups run in one loop, with the table's fields in locals, and in runs that
    /// cannot fill the table (a lookup adds at most one key), so that the room is checked
    /// once a run and the loop holds no call: the table grows at the same lookups as
    /// with [`Index::intern`].
    #[inline(always)]
    pub fn intern_all<K: Copy + Eq>(
        &mut self,
        keys: &mut Vec<K>,
        batch: &[K],
        hashes: &[u64],
        ids: &mut [u32],
        hash_of: impl Fn(&K) -> u64,
    ) {
        let mut done = 0;
        while done < batch.len() {
            if keys.len() >= self.room {
                self.grow(keys.iter().map(&hash_of));
            }
            let run = done..batch.len().min(done + self.room - keys.len());
            let interned = self.table().intern_run(
                keys,
                &batch[run.clone()],
                &hashes[run.clone()],
                &mut ids[run.clone()],
            );
            done += interned;
            if done < run.end {
                self.widen_spill(keys.iter().map(&hash_of));
            }
        }
    }

    /// The table: home slots and spill area.
    #[inline(always)]
    fn slots(&self) -> &[u32] {
        // SAFETY: `with_lines` allocates `LINE - 1` slots more than `end`, and `first` is
        // under `LINE`.
        unsafe { self.slots.get_unchecked(self.first..self.first + self.end) }
    }

    /// The table's slots and the fields a lookup needs, borrowed for a run of lookups.
    #[inline(always)]
    fn table(&mut self) -> Table<'_> {
        let table = self.first..self.first + self.end;
        Table {
            // SAFETY: as in `Index::slots`.
            slots: unsafe { self.slots.get_unchecked_mut(table) },
            size: self.size,
            tag_mask: self.tag_mask,
        }
    }

    /// Asks for the home line of a key with this hash ahead of its interning, so that
    /// the miss is in flight while other work goes on.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        let home = self.first + self.home(hash);
        prefetch(self.slots.as_ptr().wrapping_add(home));
    }

    /// More lines (see [`FINE_GROWTH`]), refilled with the `hashes` of the keys so far,
    /// by id.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, hashes: impl Iterator<Item = u64> + Clone) {
        let lines = self.size as usize / LINE;
        let lines = if self.size < FAST_GROWTH {
            lines * 8
        } else if self.size < FINE_GROWTH {
            lines * 2
        } else {
            lines + lines / 4
        };
        self.rebuild(lines, (lines / 8).clamp(1, SPILL_LINES), hashes);
    }

    /// The same home slots with twice the spill area, refilled with the `hashes` of the
    /// keys so far, by id: for a key that found the spill area full.
    #[cold]
    #[inline(never)]
    fn widen_spill(&mut self, hashes: impl Iterator<Item = u64> + Clone) {
        let spill_lines = (self.end - self.size as usize) / LINE;
        self.rebuild(self.size as usize / LINE, spill_lines * 2, hashes);
    }

    /// A table of `lines` lines and a spill area of `spill_lines` lines or more, refilled
    /// with the `hashes` of the keys so far, by id. The old table is freed first, so
    /// that two tables are never held at once. The spill area doubles until the keys fit
    /// (it takes a slot more than there are keys at most, so memory stays bounded).
    #[inline(always)]
    fn rebuild(
        &mut self,
        lines: usize,
        mut spill_lines: usize,
        hashes: impl Iterator<Item = u64> + Clone,
    ) {
        loop {
            self.slots = Vec::new();
            *self = Index::with_spill(lines, spill_lines);
            if self.table().refill(hashes.clone()) {
                return;
            }
            spill_lines *= 2;
        }
    }
}

/// A borrowed view of an [`Index`]'s table (see [`Index::table`]).
struct Table<'a> {
    /// From `Index::first` on, home slots and spill area: the last slot stays empty, so
    /// that every probe ends at an empty slot inside the table.
    slots: &'a mut [u32],
    size: u64,
    tag_mask: u32,
}

impl Table<'_> {
    /// The lookup of [`Index::intern`], once the table has room; `None` when the key is
    /// new and its slot would be the table's last.
    #[inline(always)]
    fn intern(
        &mut self,
        hash: u64,
        new_id: u32,
        is_key: impl Fn(u32) -> bool,
    ) -> Option<(u32, bool)> {
        let tag = tag(hash, self.tag_mask);
        let mut i = home(hash, self.size);
        loop {
            // SAFETY: `i` starts at a home slot (under `size`, inside the table) and moves
            // up one slot at a time, only past filled ones: the table's last slot is
            // never filled (below and in `refill`), so it stays inside the table.
            let slot = unsafe { *self.slots.get_unchecked(i) };
            if slot == 0 {
                if i == self.slots.len() - 1 {
                    return None;
                }
                // SAFETY: as above, and `i` is not the last slot.
                unsafe { *self.slots.get_unchecked_mut(i) = tag | (new_id + 1) };
                return Some((new_id, true));
            }
            // Without the tag, only the id part is left when the slot's tag is `tag`.
            let untagged = slot ^ tag;
            if untagged & self.tag_mask == 0 {
                let found = untagged - 1;
                if is_key(found) {
                    return Some((found, false));
                }
            }
            i += 1;
        }
    }

    /// [`Table::intern`] for each of `batch` in order, its id written to `ids` and new
    /// keys appended to `keys`; the table must have room for the whole batch. Returns
    /// how many were interned: all but those from one that found the spill area full.
    #[inline(always)]
    fn intern_run<K: Copy + Eq>(
        &mut self,
        keys: &mut Vec<K>,
        batch: &[K],
        hashes: &[u64],
        ids: &mut [u32],
    ) -> usize {
        // A lookup adds at most one key. With room for all of them made first, the
        // loop writes the new keys in place and keeps the count in a register, where
        // `push` (which may reallocate) reloaded it from memory at every lookup.
        keys.reserve(batch.len());
        let (known, base) = (keys.len(), keys.as_mut_ptr());
        let mut len = known;
        let mut interned = 0;
        for ((key, &hash), id) in batch.iter().zip(hashes).zip(ids.iter_mut()) {
            // SAFETY: the table holds the ids below `len`, whose keys are written.
            let is_key = |found: u32| unsafe { *base.add(found as usize) } == *key;
            let Some((found, is_new)) = self.intern(hash, len as u32, is_key) else {
                break;
            };
            *id = found;
            if is_new {
                // SAFETY: `len` is below `known + batch.len()`, within the room reserved.
                unsafe { base.add(len).write(*key) };
                len += 1;
            }
            interned += 1;
        }
        // SAFETY: the keys up to `len` are written (the first `known` were already).
        unsafe { keys.set_len(len) };
        interned
    }

    /// Enters the keys of these `hashes`, ids from 0 on, into an empty table; `false`
    /// (stopped) if one found the spill area full.
    #[inline(always)]
    fn refill(&mut self, hashes: impl Iterator<Item = u64>) -> bool {
        let last = self.slots.len() - 1;
        for (id, hash) in hashes.enumerate() {
            let mut i = home(hash, self.size);
            // SAFETY: as in `Table::intern`, `i` stops at an empty slot inside the table.
            while unsafe { *self.slots.get_unchecked(i) } != 0 {
                i += 1;
            }
            if i == last {
                return false;
            }
            // SAFETY: as above, and `i` is not the last slot.
            unsafe {
                *self.slots.get_unchecked_mut(i) = tag(hash, self.tag_mask) | (id as u32 + 1)
            };
        }
        true
    }
}

/// See [`Index::home`].
#[inline(always)]
fn home(hash: u64, size: u64) -> usize {
    (((hash >> 32) * size) >> 32) as usize
}

/// See [`Index::tag`].
#[inline(always)]
fn tag(hash: u64, tag_mask: u32) -> u32 {
    hash as u32 & tag_mask
}

/// A hint to the cache to fetch the line of `slot`; no effect on the program's meaning.
#[inline(always)]
pub fn prefetch<T>(slot: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is only a hint and never faults, whatever the address; SSE
    // (which has PREFETCHT0) is part of every x86_64 target.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(slot.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> [u64; 2] {
        [i.wrapping_mul(0x9E37_79B9), i ^ 0x5555]
    }

    type Hash = fn(&[u64; 2]) -> u64;

    /// `k` interned by [`Index::intern`], one key at a time, and appended to `keys` when
    /// new: the way the other ways of interning are held to.
    fn intern_one(
        index: &mut Index,
        keys: &mut Vec<[u64; 2]>,
        k: [u64; 2],
        hash: Hash,
    ) -> (u32, bool) {
        let interned = index.intern(
            hash(&k),
            keys.len() as u32,
            |id| keys[id as usize] == k,
            |id| hash(&keys[id as usize]),
        );
        if interned.1 {
            keys.push(k);
        }
        interned
    }

    fn plain(k: &[u64; 2]) -> u64 {
        hash_words(k)
    }

    #[test]
    fn finds_what_it_stored_across_growth() {
        let mut index = Index::default();
        let mut keys: Vec<[u64; 2]> = Vec::new();
        for i in 0..10_000u64 {
            let interned = intern_one(&mut index, &mut keys, key(i), plain);
            assert_eq!(interned, (i as u32, true));
        }
        for i in (0..10_000u64).rev() {
            let k = key(i);
            let found = index.find(hash_words(&k), |id| keys[id as usize] == k);
            assert_eq!(found, Some(i as u32));
        }
        let absent = [7, 7];
        assert_eq!(
            index.find(hash_words(&absent), |id| keys[id as usize] == absent),
            None
        );
    }

    #[test]
    fn a_batch_is_interned_as_one_key_at_a_time() {
        let (mut one, mut one_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        let (mut all, mut all_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        // Keys repeat within a batch and across batches, over several growths.
        for b in 0..200u64 {
            let batch: Vec<[u64; 2]> = (0..100).map(|j| key((b * 37 + j * 13) % 6_000)).collect();
            let hashes: Vec<u64> = batch.iter().map(plain).collect();
            let mut ids = vec![0; batch.len()];
            all.intern_all(&mut all_keys, &batch, &hashes, &mut ids, plain);
            for (k, &id) in batch.iter().zip(&ids) {
                let (expected, _) = intern_one(&mut one, &mut one_keys, *k, plain);
                assert_eq!(id, expected);
            }
            let table = |index: &Index| index.slots[index.first..][..index.end].to_vec();
            assert_eq!(table(&all), table(&one));
        }
        assert_eq!(all_keys, one_keys);
        assert_eq!(all_keys.len(), 6_000);
    }

    /// Keys whose hashes all have the table's last home slot: the probes run into the
    /// spill area until it is full, and it widens (refills that overflow included) with
    /// the same ids, one key at a time and in batches alike.
    #[test]
    fn keys_that_fill_the_spill_area_widen_it() {
        let crowded: Hash = |k| 0xFFFF_FFFF_0000_0000 | (hash_words(k) & 0xFFFF_FFFF);
        let (mut one, mut one_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        let (mut all, mut all_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        for b in 0..30u64 {
            let batch: Vec<[u64; 2]> = (0..100).map(|j| key((b * 71 + j * 3) % 2_500)).collect();
            let hashes: Vec<u64> = batch.iter().map(crowded).collect();
            let mut ids = vec![0; batch.len()];
            all.intern_all(&mut all_keys, &batch, &hashes, &mut ids, crowded);
            for (k, &id) in batch.iter().zip(&ids) {
                let (expected, _) = intern_one(&mut one, &mut one_keys, *k, crowded);
                assert_eq!(id, expected);
                assert_eq!(
                    all.find(crowded(k), |id| all_keys[id as usize] == *k),
                    Some(id)
                );
            }
        }
        assert_eq!(all_keys, one_keys);
        for index in [&one, &all] {
            let spill = index.end - index.size as usize;
            assert!(spill > one_keys.len() && spill <= 2 * one_keys.len() + LINE);
        }
    }

    /// Room made ahead for a few keys, then their lookups without the check: the same
    /// ids as one lookup at a time, across several growths.
    #[test]
    fn room_made_ahead_interns_as_intern_does() {
        let (mut one, mut one_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        let (mut ahead, mut ahead_keys) = (Index::with_room(0), Vec::<[u64; 2]>::new());
        for b in 0..2_000u64 {
            let batch: Vec<[u64; 2]> = (0..4).map(|j| key((b * 3 + j * 7) % 5_000)).collect();
            let held = ahead_keys.len() as u32;
            ahead.make_room(held, batch.len(), |id| hash_words(&ahead_keys[id as usize]));
            for k in &batch {
                let (id, new) = ahead.intern_in_room(
                    hash_words(k),
                    ahead_keys.len() as u32,
                    |id| ahead_keys[id as usize] == *k,
                    |id| hash_words(&ahead_keys[id as usize]),
                );
                if new {
                    ahead_keys.push(*k);
                }
                assert_eq!((id, new), intern_one(&mut one, &mut one_keys, *k, plain));
            }
        }
        assert_eq!(ahead_keys, one_keys);
        assert_eq!(ahead_keys.len(), 5_000);
    }

    #[test]
    fn room_given_up_front_is_not_grown() {
        let index = Index::with_room(100_000);
        assert!(index.room >= 100_000);
        assert!(index.size < 2 * 100_000 / 3 * 4);
        assert_eq!(index.size, Index::default().size * 64);
    }
}
