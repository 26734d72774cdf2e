//! The analyser: the complete state graph reachable from the start, then backward
//! breadth-first passes over it for the figures of games/src/skiddy/README.md.
//!
//! A state is a board position (a 96-bit [`State`] key). The combo needs no extra bits
//! in it: a colour's combo is broken exactly when some but not all of its skiddies are
//! in play, so a path earns the combo exactly when every state on it is *intact* (each
//! colour has all or none of its skiddies) — `combo_par` is a shortest path inside the
//! intact states, and `breakable` asks whether a non-intact state can still win.

use crate::core::{Dir, Exhausted, Limits};
use crate::memory;

use super::rules::{Board, COLOURS, RED, State};

/// No successor in that direction: the move changes nothing.
pub const SAME: u32 = u32::MAX;
pub const UNREACHABLE: u32 = u32::MAX;

const WIN: u8 = 1;
const INTACT: u8 = 2;
const KEY_BITS: u32 = 96;
const KEY_MASK: u128 = (1 << KEY_BITS) - 1;
/// Not a key (keys have 96 bits): marks a move that changes nothing.
const NO_KEY: u128 = u128::MAX;
/// States expanded together (see [`explore`]).
const BATCH: usize = 32;

/// Open addressing over 96-bit keys; a slot holds `key | (id + 1) << 96`, 0 when empty.
/// Key and id share one 16-byte slot, four slots fill a cache line, and a key's probe
/// starts at the first slot of its home line: most lookups end in the one line that
/// [`Index::prefetch`] fetched (starting anywhere in the line, a quarter of the second
/// probes crossed into an unfetched line, and those misses were most of the time).
struct Index {
    /// `LINE - 1` spare slots in front, so that `slots[first]` starts a cache line.
    slots: Vec<u128>,
    first: usize,
    bits: u32,
    len: usize,
    /// Keys held before the next one makes the table grow: up to 70 % full.
    room: usize,
}

/// Slots per 64-byte cache line.
const LINE: usize = 4;

/// Folded multiplies: the full 128-bit product mixes every key bit into both halves (a
/// plain multiply only carries bits upwards, and the slot comes from the top bits).
#[inline]
fn hash(key: u128) -> u64 {
    #[inline]
    fn fold(a: u64, b: u64) -> u64 {
        let product = u128::from(a) * u128::from(b);
        product as u64 ^ (product >> 64) as u64
    }
    let (lo, hi) = (key as u64, (key >> 64) as u64);
    fold(
        fold(lo ^ 0x243F_6A88_85A3_08D3, 0x9E37_79B9_7F4A_7C15) ^ hi,
        0xD6E8_FEB8_6659_FD93,
    )
}

impl Index {
    fn new() -> Index {
        Index::with_bits(12)
    }

    fn with_bits(bits: u32) -> Index {
        let slots: Vec<u128> = memory::zeroed((1 << bits) + LINE - 1);
        let misalignment = slots.as_ptr() as usize % (LINE * size_of::<u128>());
        let first = (LINE - misalignment / size_of::<u128>()) % LINE;
        Index {
            slots,
            first,
            bits,
            len: 0,
            room: (1 << bits) * 7 / 10,
        }
    }

    /// The first slot (counted from `first`) of the home line of a key with this hash.
    #[inline]
    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.bits)) as usize & !(LINE - 1)
    }

    /// The id of `key`, inserting it as `id` if new; the flag says whether it was new.
    #[cfg(test)]
    fn intern(&mut self, key: u128, id: u32) -> (u32, bool) {
        self.intern_hashed(key, hash(key), id)
    }

    /// [`Index::intern`] with the key's hash already computed (for the prefetch).
    #[inline(always)]
    fn intern_hashed(&mut self, key: u128, hash: u64, id: u32) -> (u32, bool) {
        if self.len >= self.room {
            self.grow();
        }
        let mask = (1 << self.bits) - 1;
        let mut i = self.home(hash);
        let slots = &mut self.slots[self.first..];
        loop {
            let slot = slots[i];
            if slot == 0 {
                slots[i] = key | (u128::from(id) + 1) << KEY_BITS;
                self.len += 1;
                return (id, true);
            }
            if slot & KEY_MASK == key {
                return ((slot >> KEY_BITS) as u32 - 1, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// Asks for the home line of a key with this hash ahead of its interning, so that
    /// the miss is in flight while other work goes on.
    #[inline]
    fn prefetch(&self, hash: u64) {
        prefetch(&self.slots[self.first + self.home(hash)]);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::replace(self, Index::with_bits(self.bits + 1));
        self.len = old.len;
        let mask = (1 << self.bits) - 1;
        for &slot in old.slots[old.first..].iter().filter(|&&s| s != 0) {
            let mut i = self.home(hash(slot & KEY_MASK));
            while self.slots[self.first + i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[self.first + i] = slot;
        }
    }
}

/// A hint to the cache to fetch the line of `slot`; no effect on the program's meaning.
#[inline(always)]
fn prefetch(slot: &u128) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is only a hint and never faults; the pointer comes from a
    // reference, and SSE (which has PREFETCHT0) is part of every x86_64 target.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((slot as *const u128).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// Skiddies per colour (index code - 1).
pub fn colour_counts(state: State) -> [u32; COLOURS] {
    std::array::from_fn(|c| state.mask(RED + c as u8).count_ones())
}

/// The reachable state graph; ids are in breadth-first order, the start is 0.
pub struct Graph {
    pub keys: Vec<u128>,
    /// Successor per direction (in `Dir::ALL` order), or `SAME`; wins have none.
    pub edges: Vec<[u32; 4]>,
    /// Moves from the start.
    pub depth: Vec<u32>,
    flags: Vec<u8>,
    /// States whose moves were computed: every non-winning state.
    pub expanded: u64,
}

/// Explores every state reachable from `start`, within the state budget.
pub fn explore(board: &Board, start: State, limits: &Limits) -> Result<Graph, Exhausted> {
    let full = colour_counts(start);
    let classify = |s: State| {
        let intact = colour_counts(s)
            .iter()
            .zip(&full)
            .all(|(&n, &all)| n == 0 || n == all);
        (u8::from(Board::is_win(s)) * WIN) | (u8::from(intact) * INTACT)
    };
    // Room for the whole budget up to 2^22 states: memory is only touched when used, and
    // the big graphs skip the copying of a growing vector.
    let room = limits.max_states.clamp(1, 1 << 22) as usize;
    let mut graph = Graph {
        keys: memory::with_capacity(room),
        edges: memory::with_capacity(room),
        depth: memory::with_capacity(room),
        flags: memory::with_capacity(room),
        expanded: 0,
    };
    graph.keys.push(start.key());
    graph.depth.push(0);
    graph.flags.push(classify(start));
    let mut index = Index::new();
    index.intern_hashed(start.key(), hash(start.key()), 0);
    // States are expanded in batches, one batch ahead of the interning: while the
    // successors of one batch are interned, the home lines of the next batch's are
    // already on their way, so the cache misses overlap with work instead of queueing.
    // Ids are still given in the order of the states and directions.
    let (mut first, mut second) = (Batch::new(), Batch::new());
    // Swapped by reference: the batches are arrays, too big to copy every round.
    let (mut pending, mut next) = (&mut first, &mut second);
    pending.expand(0, &mut graph, board, &index, limits)?;
    while !pending.states.is_empty() {
        next.expand(pending.states.end, &mut graph, board, &index, limits)?;
        pending.intern(&mut graph, &mut index, &classify);
        std::mem::swap(&mut pending, &mut next);
        if pending.states.is_empty() {
            // The frontier had run dry before the interning found new states.
            pending.expand(graph.edges.len(), &mut graph, board, &index, limits)?;
        }
    }
    Ok(graph)
}

/// Up to [`BATCH`] consecutive states and their successors' keys (`NO_KEY` where a move
/// changes nothing or the state is a win), four per state, with the keys' hashes; fixed
/// arrays, written in place.
struct Batch {
    states: std::ops::Range<usize>,
    successors: [u128; 4 * BATCH],
    hashes: [u64; 4 * BATCH],
}

impl Batch {
    fn new() -> Batch {
        Batch {
            states: 0..0,
            successors: [NO_KEY; 4 * BATCH],
            hashes: [0; 4 * BATCH],
        }
    }

    /// Takes the known states from `from` on (every one before it is expanded), computes
    /// their moves and prefetches each successor's home line as soon as it is known: one
    /// miss at a time between the tilts, where a burst of a whole batch's prefetches
    /// stalled on the few outstanding misses a core can track.
    fn expand(
        &mut self,
        from: usize,
        graph: &mut Graph,
        board: &Board,
        index: &Index,
        limits: &Limits,
    ) -> Result<(), Exhausted> {
        self.states = from..(from + BATCH).min(graph.keys.len());
        let rows = self
            .successors
            .chunks_exact_mut(4)
            .zip(self.hashes.chunks_exact_mut(4));
        for (u, (keys, hashes)) in self.states.clone().zip(rows) {
            keys.fill(NO_KEY);
            if graph.flags[u] & WIN != 0 {
                continue;
            }
            graph.expanded += 1;
            limits.tick(graph.expanded)?;
            let state = State::from_key(graph.keys[u]);
            for ((next, key), hash_slot) in board.tilts(state).into_iter().zip(keys).zip(hashes) {
                if next != state {
                    *key = next.key();
                    *hash_slot = hash(*key);
                    index.prefetch(*hash_slot);
                }
            }
        }
        Ok(())
    }

    /// Gives the successors their ids (new states are appended) and records the edges.
    fn intern(&self, graph: &mut Graph, index: &mut Index, classify: &impl Fn(State) -> u8) {
        let rows = self
            .successors
            .chunks_exact(4)
            .zip(self.hashes.chunks_exact(4));
        for (u, (keys, hashes)) in self.states.clone().zip(rows) {
            let depth = graph.depth[u] + 1;
            let mut row = [SAME; 4];
            for ((slot, &key), &hash) in row.iter_mut().zip(keys).zip(hashes) {
                if key == NO_KEY {
                    continue;
                }
                let fresh = graph.keys.len() as u32;
                let (id, is_new) = index.intern_hashed(key, hash, fresh);
                if is_new {
                    graph.keys.push(key);
                    graph.depth.push(depth);
                    graph.flags.push(classify(State::from_key(key)));
                }
                *slot = id;
            }
            graph.edges.push(row);
        }
    }
}

/// Predecessor lists in compressed rows: the predecessors of `v` are
/// `list[offsets[v]..offsets[v + 1]]`, one entry per edge.
pub struct Preds {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl Preds {
    pub fn of(&self, v: usize) -> &[u32] {
        &self.list[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

/// Everything the rules ask of a level, read off its graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Findings {
    pub par: Option<u32>,
    pub combo_par: Option<u32>,
    /// A shortest win that earns the combo when `combo_par == par`, else a shortest win.
    pub solution: Option<Vec<Dir>>,
    pub solution_count: u64,
    pub dead_ends: u64,
    pub real_states: u64,
    pub breakable: bool,
    pub expanded: u64,
}

impl Graph {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn is_win(&self, i: usize) -> bool {
        self.flags[i] & WIN != 0
    }

    pub fn is_intact(&self, i: usize) -> bool {
        self.flags[i] & INTACT != 0
    }

    pub fn state(&self, i: usize) -> State {
        State::from_key(self.keys[i])
    }

    pub fn predecessors(&self) -> Preds {
        let n = self.len();
        // Count each row's length into `offsets[v]`, sum them up to each row's end, then
        // fill every row backwards from its end: each `offsets[v]` ends at its row's
        // start, with no second table of fill positions.
        let mut offsets: Vec<u32> = memory::zeroed(n + 1);
        for row in &self.edges {
            for &v in row.iter().filter(|&&v| v != SAME) {
                offsets[v as usize] += 1;
            }
        }
        for i in 1..=n {
            offsets[i] += offsets[i - 1];
        }
        let mut list: Vec<u32> = memory::zeroed(offsets[n] as usize);
        for (u, row) in self.edges.iter().enumerate().rev() {
            for &v in row.iter().rev().filter(|&&v| v != SAME) {
                offsets[v as usize] -= 1;
                list[offsets[v as usize] as usize] = u as u32;
            }
        }
        Preds { offsets, list }
    }

    /// Fewest moves from each state to any of `sources`, stepping backwards only onto
    /// states that `pass` admits (`UNREACHABLE` when none is reachable).
    pub fn distances_to(
        &self,
        preds: &Preds,
        sources: impl IntoIterator<Item = usize>,
        pass: impl Fn(usize) -> bool,
    ) -> Vec<u32> {
        let mut dist = memory::filled(self.len(), UNREACHABLE);
        let mut queue: Vec<u32> = memory::with_capacity(self.len());
        for s in sources {
            if dist[s] == UNREACHABLE {
                dist[s] = 0;
                queue.push(s as u32);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head] as usize;
            head += 1;
            for &u in preds.of(v) {
                let u = u as usize;
                if dist[u] == UNREACHABLE && pass(u) {
                    dist[u] = dist[v] + 1;
                    queue.push(u as u32);
                }
            }
        }
        dist
    }

    /// One shortest way down `dist` from `from`: at each state the first direction (in
    /// `Dir::ALL` order) whose successor is one step closer and admitted by `pass`.
    pub fn descend(&self, from: usize, dist: &[u32], pass: impl Fn(usize) -> bool) -> Vec<Dir> {
        let mut moves = Vec::with_capacity(dist[from] as usize);
        let mut at = from;
        while dist[at] > 0 {
            let (dir, next) = Dir::ALL
                .into_iter()
                .map(|d| (d, self.edges[at][d.index()]))
                .find(|&(_, v)| v != SAME && dist[v as usize] == dist[at] - 1 && pass(v as usize))
                .expect("a state at finite distance has a step closer");
            moves.push(dir);
            at = next as usize;
        }
        moves
    }

    /// Move sequences of exactly `par` moves from the start to a win, saturating at `cap`.
    pub fn count_shortest_wins(&self, preds: &Preds, par: u32, cap: u64) -> u64 {
        // Ids are in breadth-first order: the states within `par` moves are a prefix.
        let within = self.depth.partition_point(|&d| d <= par);
        let mut paths: Vec<u64> = memory::zeroed(within);
        paths[0] = 1;
        let mut total = 0u64;
        for v in 0..within {
            let depth = self.depth[v];
            for &u in preds.of(v) {
                if self.depth[u as usize] + 1 == depth {
                    paths[v] = (paths[v] + paths[u as usize]).min(cap);
                }
            }
            if self.is_win(v) && depth == par {
                total = (total + paths[v]).min(cap);
            }
        }
        total
    }

    /// The rules' figures for the start (state 0).
    pub fn findings(&self, solution_cap: u64) -> Findings {
        let preds = self.predecessors();
        let wins = || (0..self.len()).filter(|&i| self.is_win(i));
        let dist = self.distances_to(&preds, wins(), |_| true);
        let combo = self.distances_to(&preds, wins(), |i| self.is_intact(i));
        let finite = |d: u32| (d != UNREACHABLE).then_some(d);
        let (par, combo_par) = (finite(dist[0]), finite(combo[0]));
        let solution = match (par, combo_par) {
            (Some(p), Some(c)) if p == c => Some(self.descend(0, &combo, |i| self.is_intact(i))),
            (Some(_), _) => Some(self.descend(0, &dist, |_| true)),
            _ => None,
        };
        let (mut dead_ends, mut real_states, mut breakable) = (0, 0, false);
        for i in (0..self.len()).filter(|&i| !self.is_win(i)) {
            real_states += 1;
            dead_ends += u64::from(dist[i] == UNREACHABLE);
            breakable |= !self.is_intact(i) && dist[i] != UNREACHABLE;
        }
        Findings {
            par,
            combo_par,
            solution,
            solution_count: par.map_or(0, |p| self.count_shortest_wins(&preds, p, solution_cap)),
            dead_ends,
            real_states,
            breakable,
            expanded: self.expanded,
        }
    }
}

/// Baldiraghi's count of potential states: over every way of having `0..=n` skiddies
/// of each colour in play except none at all, the distinguishable placements of those
/// skiddies, the crates and the ice over the free cells. Exact: the largest board's
/// figure is below 10^29, far inside `u128`.
pub fn potential_states(free_cells: u32, skiddies: &[u32], crates: u32, ice: u32) -> u128 {
    let mut total = 0u128;
    let mut in_play = vec![0u32; skiddies.len()];
    loop {
        if in_play.iter().any(|&k| k > 0) {
            let mut parts = in_play.clone();
            parts.extend([crates, ice]);
            total += placements(free_cells, &parts);
        }
        // Next combination, like an odometer with digit i running over 0..=skiddies[i].
        let Some(i) = (0..in_play.len()).find(|&i| in_play[i] < skiddies[i]) else {
            return total;
        };
        in_play[i] += 1;
        in_play[..i].fill(0);
    }
}

/// Distinguishable placements of pieces of the given kinds on `cells` cells (the rest
/// empty): the multinomial coefficient, as a product of binomials.
fn placements(cells: u32, kinds: &[u32]) -> u128 {
    let mut left = cells;
    let mut product = 1u128;
    for &k in kinds {
        if k > left {
            return 0;
        }
        product *= binomial(left, k);
        left -= k;
    }
    product
}

fn binomial(n: u32, k: u32) -> u128 {
    let k = k.min(n - k);
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn potential_states_match_the_write_up() {
        // Level 1-1: two reds over six free cells, 15 + 6.
        assert_eq!(potential_states(6, &[2], 0, 0), 21);
        // The 3x3 example: two pairs of two colours over eight cells.
        assert_eq!(potential_states(8, &[2, 2], 0, 0), 884);
        // The big level: four per colour, a crate and an ice cube over 24 cells.
        assert_eq!(potential_states(24, &[4, 4], 1, 1), 21_513_083_856);
    }

    #[test]
    fn potential_states_terms_by_hand() {
        // One red alone on 3 cells: 3 placements. With one crate too: 3 * 2 = 6.
        assert_eq!(potential_states(3, &[1], 0, 0), 3);
        assert_eq!(potential_states(3, &[1], 1, 0), 6);
        // Red 1 + yellow 1 on 2 cells: (1,0) 2, (0,1) 2, (1,1) 2.
        assert_eq!(potential_states(2, &[1, 1], 0, 0), 6);
        // The largest inner area packed with six kinds fits u128.
        assert!(potential_states(30, &[5, 5, 5, 5], 5, 5) > u128::from(u64::MAX));
    }

    #[test]
    fn index_finds_what_it_stored_across_growth() {
        let mut index = Index::new();
        for i in 0..10_000u32 {
            let key = u128::from(i).wrapping_mul(0x1234_5678_9abc_def1) & KEY_MASK;
            assert_eq!(index.intern(key, i), (i, true));
        }
        for i in (0..10_000u32).rev() {
            let key = u128::from(i).wrapping_mul(0x1234_5678_9abc_def1) & KEY_MASK;
            assert_eq!(index.intern(key, 99_999), (i, false));
        }
        assert_eq!(index.intern(0, 10_000), (0, false));
    }
}
