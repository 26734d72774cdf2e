//! The complete state graph of a tilt game (four moves, deterministic outcomes), for
//! states of any width: fruit's explorer (a state is one bitboard per fruit colour present
//! plus one for stones, so its width depends on the level). Game-neutral, so that a new
//! tilt game with states of varying width can use it as it is.
//!
//! Skiddy does not use it: its state always fits one 96-bit key, and `skiddy/solver.rs`
//! explores with a table specialised to that key (one 16-byte slot per state, batched
//! prefetching) and tracks the combo's intact states, which this generic graph does not.
//!
//! States are fixed-width rows of `u64` bitboards stored back to back in one arena; the
//! hash table holds only row indices, so a state costs its own bytes plus about five
//! and nothing is allocated per state. The width is a const parameter of the search.

use std::hash::{BuildHasher, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::core::{Dir, Exhausted, Limits};

/// Interned states: an arena of `stride`-word rows and an index over them.
pub struct StateSet {
    stride: usize,
    words: Vec<u64>,
    table: HashTable<u32>,
}

impl StateSet {
    pub fn new(stride: usize) -> Self {
        StateSet::with_capacity(stride, 1024)
    }

    /// Room for `states` states before the first growth.
    pub fn with_capacity(stride: usize, states: usize) -> Self {
        StateSet {
            stride,
            words: Vec::with_capacity(stride * states),
            table: HashTable::with_capacity(states),
        }
    }

    pub fn len(&self) -> usize {
        self.words.len() / self.stride
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn get(&self, index: u32) -> &[u64] {
        let start = index as usize * self.stride;
        &self.words[start..start + self.stride]
    }

    /// The index of `state`, adding it if new; the flag says whether it was new. The row
    /// width is a constant so that hashing, comparing and copying a row compile to a few
    /// straight-line instructions.
    #[inline(always)]
    pub fn intern<const W: usize>(&mut self, state: &[u64; W]) -> (u32, bool) {
        debug_assert_eq!(W, self.stride);
        let hash = hash_row(state);
        let words = &self.words;
        if let Some(&index) = self.table.find(hash, |&i| row::<W>(words, i) == state) {
            return (index, false);
        }
        let index = (self.words.len() / W) as u32;
        self.words.extend_from_slice(state);
        let words = &self.words;
        self.table
            .insert_unique(hash, index, |&i| hash_row(row::<W>(words, i)));
        (index, true)
    }

    /// Drops the index once no more states will be added: the rows stay readable.
    pub fn seal(&mut self) {
        self.table = HashTable::new();
    }

    /// Row `index` as a fixed-width array.
    pub fn get_fixed<const W: usize>(&self, index: u32) -> &[u64; W] {
        row::<W>(&self.words, index)
    }
}

/// Row `index` of an arena of `W`-word rows.
#[inline]
fn row<const W: usize>(words: &[u64], index: u32) -> &[u64; W] {
    let start = index as usize * W;
    words[start..start + W]
        .try_into()
        .expect("a row is W words")
}

#[inline]
fn hash_row<const W: usize>(row: &[u64; W]) -> u64 {
    let mut hasher = FxBuildHasher.build_hasher();
    for &w in row {
        hasher.write_u64(w);
    }
    hasher.finish()
}

/// What one tilt did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing changed: not a move.
    Same,
    /// The level is lost (terminal).
    Lost,
    /// A new board, written to the output row.
    Moved,
}

/// Edge targets that are not states.
pub const SAME: u32 = u32::MAX;
pub const LOST: u32 = u32::MAX - 1;
pub const UNREACHABLE: u32 = u32::MAX;

/// The full reachable graph from a start state.
///
/// Memory is what bounds a big exploration (a verification may explore millions of
/// states), so only what the questions below need is kept per state: the row, the four
/// edges and the win flag. Depths and path counts are not: states are numbered in
/// breadth-first order, so a depth is a contiguous range of indices (`layers`), and the
/// path counts of two layers at a time are enough to count the shortest wins.
pub struct Graph {
    pub states: StateSet,
    /// The first state of each depth, then the end of the last one.
    layers: Vec<u32>,
    /// Successor per direction (in `Dir::ALL` order), or `SAME` / `LOST`.
    pub edges: Vec<[u32; 4]>,
    pub win: Vec<bool>,
    /// The depth of the nearest win, and the shortest paths from the start to wins at
    /// that depth (saturating at the explore cap).
    par: Option<u32>,
    optimal: u64,
    /// States whose moves were computed (every non-winning state).
    pub expanded: u64,
}

/// Explores every state reachable from `start`. `tilt` writes the successor of a state
/// into its output row; `is_win` marks terminal winning states (not expanded further).
/// The state width `W` is a constant (a caller with widths known only at run time matches
/// on them) so that the tilt and the state set work on arrays of known length. Path
/// counts saturate at `path_cap` (at most `u32::MAX`: they are kept as `u32`).
pub fn explore<const W: usize>(
    start: &[u64; W],
    limits: &Limits,
    path_cap: u64,
    mut tilt: impl FnMut(&[u64; W], Dir, &mut [u64; W]) -> Step,
    is_win: impl Fn(&[u64; W]) -> bool,
) -> Result<Graph, Exhausted> {
    let path_cap = path_cap.min(u64::from(u32::MAX)) as u32;
    // Room for the whole budget up to 2^14 states: most of the cost of a big exploration
    // was rehashing a table, and copying per-state vectors, grown from a few states.
    let room = limits.max_states.clamp(1024, 1 << 14) as usize;
    let mut graph = Graph {
        states: StateSet::with_capacity(W, room),
        layers: vec![0],
        edges: Vec::with_capacity(room),
        win: starting_with(is_win(start), room),
        par: None,
        optimal: 0,
        expanded: 0,
    };
    graph.states.intern(start);
    // Shortest paths to the states of the layer being expanded and of the next one, from
    // index `base` on.
    let mut paths: Vec<u32> = vec![1];
    let mut base = 0u32;
    let mut next = [0u64; W];
    let (mut begin, mut end) = (0u32, 1u32);
    let mut depth = 0u32;
    while begin < end {
        graph.layers.push(end);
        if graph.par.is_none() && graph.win[begin as usize..end as usize].contains(&true) {
            graph.par = Some(depth);
            graph.optimal = (begin..end)
                .filter(|&i| graph.win[i as usize])
                .fold(0u64, |acc, i| acc + u64::from(paths[(i - base) as usize]));
        }
        for u in begin..end {
            let mut row = [SAME; 4];
            if !graph.win[u as usize] {
                graph.expanded += 1;
                limits.tick(graph.expanded)?;
                let current = *graph.states.get_fixed::<W>(u);
                let from = paths[(u - base) as usize];
                for dir in Dir::ALL {
                    row[dir.index()] = match tilt(&current, dir, &mut next) {
                        Step::Same => SAME,
                        Step::Lost => LOST,
                        Step::Moved => {
                            let (v, is_new) = graph.states.intern(&next);
                            if is_new {
                                graph.win.push(is_win(&next));
                                paths.push(0);
                            }
                            // Only a state of the next layer is one move deeper.
                            if v >= end {
                                let at = &mut paths[(v - base) as usize];
                                *at = (u64::from(*at) + u64::from(from)).min(u64::from(path_cap))
                                    as u32;
                            }
                            v
                        }
                    };
                }
            }
            graph.edges.push(row);
        }
        paths.drain(..(end - begin) as usize);
        base = end;
        (begin, end) = (end, graph.states.len() as u32);
        depth += 1;
    }
    graph.states.seal();
    Ok(graph)
}

/// A vector holding `first`, with room for `room` elements.
fn starting_with<T>(first: T, room: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(room);
    v.push(first);
    v
}

impl Graph {
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// Moves from the start to state `index` (breadth-first depth).
    pub fn depth(&self, index: u32) -> u32 {
        (self.layers.partition_point(|&first| first <= index) - 1) as u32
    }

    /// Frees the state rows, for a caller that needs only the graph's shape from now on
    /// (distances, counts, the solution walk): the largest table goes before the
    /// distances are measured.
    pub fn forget_states(&mut self) {
        self.states.words = Vec::new();
    }

    /// Fewest moves from each state to any win (`UNREACHABLE` when none), by a backward
    /// breadth-first search over the reversed edges.
    pub fn distance_to_win(&self) -> Vec<u32> {
        let n = self.len();
        let edges = self.edges.as_flattened();
        // The edges into each state in compressed rows: `first[v]..first[v + 1]` of
        // `from`. Counted, summed, then filled from the ends down, so that `first` ends
        // as the starts without a second table of cursors.
        let mut first = vec![0u32; n + 1];
        for &v in edges {
            if v < LOST {
                first[v as usize] += 1;
            }
        }
        let mut total = 0u32;
        for f in first.iter_mut() {
            total += *f;
            *f = total;
        }
        let mut from = vec![0u32; total as usize];
        for (e, &v) in edges.iter().enumerate() {
            if v < LOST {
                first[v as usize] -= 1;
                from[first[v as usize] as usize] = (e / 4) as u32;
            }
        }
        // The search keeps a bit per state and the queue (states by distance); the
        // distances are written once the edge rows are gone.
        let mut seen = vec![0u64; n.div_ceil(64)];
        let mut queue: Vec<u32> = Vec::with_capacity(n);
        for i in 0..n as u32 {
            if self.win[i as usize] {
                seen[i as usize / 64] |= 1 << (i % 64);
                queue.push(i);
            }
        }
        // `bounds[d]`: where distance d + 1 starts in the queue.
        let mut bounds = Vec::new();
        let mut head = 0;
        while head < queue.len() {
            let end = queue.len();
            bounds.push(end);
            while head < end {
                let v = queue[head] as usize;
                head += 1;
                for &u in &from[first[v] as usize..first[v + 1] as usize] {
                    let (word, bit) = (u as usize / 64, 1u64 << (u % 64));
                    if seen[word] & bit == 0 {
                        seen[word] |= bit;
                        queue.push(u);
                    }
                }
            }
        }
        drop((first, from, seen));
        let mut dist = vec![UNREACHABLE; n];
        let mut start = 0;
        for (d, &end) in bounds.iter().enumerate() {
            for &v in &queue[start..end] {
                dist[v as usize] = d as u32;
            }
            start = end;
        }
        dist
    }

    /// Fewest moves to win from the start.
    pub fn par(&self) -> Option<u32> {
        self.par
    }

    /// Shortest winning sequences from the start, saturating at `cap` (and at the
    /// explore cap).
    pub fn optimal_paths(&self, cap: u64) -> u64 {
        self.optimal.min(cap)
    }

    /// One shortest winning sequence from `from`: at each state the first direction (in
    /// `Dir::ALL` order) that gets one move closer to a win.
    pub fn shortest_win_from(&self, from: u32, dist: &[u32]) -> Option<Vec<Dir>> {
        if dist[from as usize] == UNREACHABLE {
            return None;
        }
        let mut moves = Vec::with_capacity(dist[from as usize] as usize);
        let mut at = from;
        while dist[at as usize] > 0 {
            let (dir, next) = Dir::ALL
                .into_iter()
                .map(|d| (d, self.edges[at as usize][d.index()]))
                .find(|&(_, v)| v < LOST && dist[v as usize] == dist[at as usize] - 1)
                .expect("a state at finite distance has a step closer");
            moves.push(dir);
            at = next;
        }
        Some(moves)
    }

    /// Non-winning states from which no win is reachable.
    pub fn dead_ends(&self, dist: &[u32]) -> u64 {
        dist.iter()
            .zip(&self.win)
            .filter(|&(&d, &w)| !w && d == UNREACHABLE)
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Stop;

    /// A counter on 0..=5 where U adds one, D subtracts one; 5 wins, 0 is a trap with no
    /// way out, and L from 3 loses.
    fn counter_tilt(s: &[u64; 1], d: Dir, out: &mut [u64; 1]) -> Step {
        let v = s[0];
        let next = match d {
            Dir::U => v + 1,
            Dir::D if v > 0 && v != 1 => v - 1,
            Dir::D if v == 1 => 0,
            Dir::L if v == 3 => return Step::Lost,
            _ => return Step::Same,
        };
        if v == 0 {
            return Step::Same;
        }
        out[0] = next;
        Step::Moved
    }

    #[test]
    fn explores_counts_and_measures() {
        let stop = Stop::never();
        let limits = Limits {
            max_states: 100,
            stop: &stop,
        };
        let g = explore(&[2], &limits, 1000, counter_tilt, |s| s[0] == 5).unwrap();
        // States 2,3,1,4,0,5.
        assert_eq!(g.len(), 6);
        assert_eq!(g.par(), Some(3));
        assert_eq!(g.optimal_paths(1000), 1);
        let dist = g.distance_to_win();
        assert_eq!(
            g.shortest_win_from(0, &dist),
            Some(vec![Dir::U, Dir::U, Dir::U])
        );
        // Only state 0 cannot win.
        assert_eq!(g.dead_ends(&dist), 1);
        assert_eq!(g.edges[1][Dir::L.index()], LOST);
    }

    #[test]
    fn solution_walk_skips_moves_into_dead_ends() {
        // From 1, U (tried first) falls into the trap 0; D wins.
        let tilt = |s: &[u64; 1], d: Dir, out: &mut [u64; 1]| match (s[0], d) {
            (1, Dir::U) => {
                out[0] = 0;
                Step::Moved
            }
            (1, Dir::D) => {
                out[0] = 2;
                Step::Moved
            }
            _ => Step::Same,
        };
        let stop = Stop::never();
        let limits = Limits {
            max_states: 10,
            stop: &stop,
        };
        let g = explore(&[1], &limits, 10, tilt, |s| s[0] == 2).unwrap();
        let dist = g.distance_to_win();
        assert_eq!(g.shortest_win_from(0, &dist), Some(vec![Dir::D]));
        assert_eq!(g.dead_ends(&dist), 1);
    }

    #[test]
    fn state_budget_is_enforced() {
        let stop = Stop::never();
        let limits = Limits {
            max_states: 2,
            stop: &stop,
        };
        let err = explore(&[2], &limits, 10, counter_tilt, |s| s[0] == 5).err();
        assert_eq!(err, Some(Exhausted::States(2)));
    }

    #[test]
    fn interning_finds_equal_rows() {
        let mut set = StateSet::new(2);
        assert_eq!(set.intern(&[1, 2]), (0, true));
        assert_eq!(set.intern(&[2, 1]), (1, true));
        assert_eq!(set.intern(&[1, 2]), (0, false));
        assert_eq!(set.get(1), &[2, 1]);
    }
}
