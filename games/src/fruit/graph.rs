//! Fruit's complete state graph (four moves, deterministic outcomes): a state is one
//! bitboard per fruit colour present plus one for stones, so its width depends on the
//! level and is a const parameter of the search. It lives in fruit's folder because fruit
//! is the only game that explores with it: skiddy and hopper have states of a fixed width
//! and graphs of their own (skiddy tracks the combo's intact states, hopper searches with
//! a bound); what they share with it is the dense index ([`crate::index`]).
//!
//! Memory is what bounds a big exploration (a verification may explore millions of
//! states), so a state costs only its packed key (the caller's `pack`: 12 bytes up to
//! six colours), one byte of flags and moves, 4 bytes per move that changes something
//! and a 4-byte slot of the index at most 75 % full. Depths and path counts are not
//! kept: states are numbered in breadth-first order, so a depth is a contiguous range of
//! ids, and the shortest wins are counted after the search, over the rows. Predecessors
//! are placed only after the search: chains for the dead ends, once the keys are freed,
//! and lists for the distances.

use crate::core::{Dir, Exhausted, Limits};
use crate::index::{Index, hash_two, hash_words};
use crate::memory;
use crate::successors::{self, MARK, NONE, PredChains, Preds};

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

pub const UNREACHABLE: u32 = u32::MAX;

const WIN: u8 = 1;
// The stop request is looked at where a mark is placed (see `explore`).
const _: () = assert!(Limits::STOP_CHECKS.is_multiple_of(MARK as u64));
/// The high nibble of a state's info byte: one bit per direction (in `Dir::ALL` order)
/// whose tilt leads to a state.
const MOVES_SHIFT: u32 = 4;

/// The full reachable graph from a start state; ids are in breadth-first order, the
/// start is 0.
#[cfg_attr(test, derive(PartialEq))]
pub struct Graph {
    /// Packed keys of `stride` words, by id; [`Graph::forget_states`] frees them.
    keys: Vec<u32>,
    stride: usize,
    /// Per state: `WIN` and the directions with a successor (`MOVES_SHIFT`).
    info: Vec<u8>,
    /// The successors of every state in id order, each state's in `Dir::ALL` order.
    succ: Vec<u32>,
    /// Where in `succ` the successors of states `MARK * i..` start: with the move bits,
    /// any state's row at the cost of a few popcounts, for well under a byte a state.
    marks: Vec<u32>,
    /// The first id of each depth (moves from the start): ids are breadth-first, so a
    /// state's depth is the layer its id falls in.
    layers: Vec<u32>,
    /// The depth of the nearest win.
    par: Option<u32>,
    /// The winning states, by id.
    wins: Vec<u32>,
    /// States whose moves were computed (every non-winning state).
    pub expanded: u64,
}

/// How a state of `W` bitboards is kept: packed into `K` words for the table of keys,
/// unpacked to be tilted. `unpack(pack(s)) == s` for every reachable state.
pub struct Codec<P, U> {
    pub pack: P,
    pub unpack: U,
}

/// Explores every state reachable from `start`. `tilt` writes the successor of a state
/// into its output row; `is_win` marks terminal winning states (not expanded further).
/// The state width `W` and key width `K` are constants (a caller with widths known only
/// at run time matches on them) so that the tilt and the index work on arrays of known
/// length. Inlined into each caller, so that a caller compiled for more instructions
/// has the search use them.
#[inline(always)]
pub fn explore<const W: usize, const K: usize>(
    start: &[u64; W],
    limits: &Limits,
    mut tilt: impl FnMut(&[u64; W], Dir, &mut [u64; W]) -> Step,
    is_win: impl Fn(&[u64; W]) -> bool,
    codec: Codec<impl Fn(&[u64; W]) -> [u32; K], impl Fn(&[u32; K]) -> [u64; W]>,
) -> Result<Graph, Exhausted> {
    let mut search = Search::new(limits.max_states, &(codec.pack)(start), is_win(start));
    let mut next = [0u64; W];
    let (mut begin, mut end) = (0u32, 1u32);
    while begin < end {
        search.note_layer(begin..end);
        // Every state but a win is expanded, so by the layer's end the states expanded
        // are those so far less the wins, all known now: the cap is checked once a
        // layer, not counted a state at a time.
        limits.check_cap(u64::from(end) - search.graph.wins.len() as u64)?;
        for u in begin..end {
            if (u as usize).is_multiple_of(MARK) {
                search.graph.marks.push(search.graph.succ.len() as u32);
                if u64::from(u).is_multiple_of(Limits::STOP_CHECKS) {
                    limits.check_stop()?;
                }
            }
            if search.graph.info[u as usize] & WIN != 0 {
                continue;
            }
            let current = (codec.unpack)(search.key(u));
            // One call a direction, not a loop: each is its own copy of the tilt, with
            // the direction a constant.
            let (pack, mut moves) = (&codec.pack, 0);
            let mut board = search.expansion();
            moves |= board.try_move(&current, Dir::U, &mut next, &mut tilt, &is_win, pack);
            moves |= board.try_move(&current, Dir::D, &mut next, &mut tilt, &is_win, pack);
            moves |= board.try_move(&current, Dir::L, &mut next, &mut tilt, &is_win, pack);
            moves |= board.try_move(&current, Dir::R, &mut next, &mut tilt, &is_win, pack);
            search.graph.info[u as usize] |= moves << MOVES_SHIFT;
        }
        (begin, end) = (end, search.graph.info.len() as u32);
    }
    let mut graph = search.graph;
    graph.expanded = (graph.len() - graph.wins.len()) as u64;
    graph.keys = search.keys.into_flattened();
    Ok(graph)
}

/// The graph being built and the index over its keys, typed by the key width.
struct Search<const K: usize> {
    graph: Graph,
    /// The keys by id, typed so that reading one checks a single bound; the graph
    /// takes them, flattened, once the search is over.
    keys: Vec<[u32; K]>,
    index: Index,
}

impl<const K: usize> Search<K> {
    /// A search from the state `start` packs to.
    fn new(max_states: u64, start: &[u32; K], win: bool) -> Self {
        // Room for everything the budget can reach, up to 2^26 entries: an expanded
        // state adds at most four states and four edges. Memory is only touched when
        // used, and no table is ever copied to grow. Plain pages, not huge ones: these
        // tables fill from the front, and a huge page would hold up to 2 MiB of each
        // before it is used. The generator's budgets (60,000) keep room for the budget
        // alone: small tables that the allocator reuses.
        let per_state = if max_states < 1 << 17 { 1 } else { 4 };
        let room = max_states
            .saturating_mul(per_state)
            .saturating_add(1)
            .min(1 << 26) as usize;
        // A verification's budget starts the index with room for 2^16 states, so that
        // the analyses of served levels never refill it; the generator's budgets start
        // it small, since it is zeroed for every candidate.
        let index_room = if per_state > 1 { 1 << 16 } else { 0 };
        let mut search = Search {
            graph: Graph {
                keys: Vec::new(),
                stride: K,
                info: Vec::with_capacity(room),
                succ: Vec::with_capacity(room),
                marks: Vec::with_capacity(room / MARK + 1),
                layers: Vec::new(),
                par: None,
                wins: Vec::new(),
                expanded: 0,
            },
            keys: Vec::with_capacity(room),
            index: Index::with_room(index_room),
        };
        let mut first = search.expansion();
        first.intern(start);
        first.add(start, win);
        search
    }

    #[inline(always)]
    fn key(&self, id: u32) -> &[u32; K] {
        &self.keys[id as usize]
    }

    /// The expansion of one board: it adds at most four keys, so the index is checked
    /// for room once a board, not at each of the board's lookups.
    #[inline(always)]
    fn expansion(&mut self) -> Expansion<'_, K> {
        let keys = &self.keys;
        let held = self.graph.info.len() as u32;
        let most = Dir::ALL.len();
        self.index
            .make_room(held, most, |id| hash_key(&keys[id as usize]));
        Expansion {
            graph: &mut self.graph,
            keys: &mut self.keys,
            index: &mut self.index,
        }
    }

    /// Records the layer about to be expanded; the first that holds a win is the par.
    fn note_layer(&mut self, layer: std::ops::Range<u32>) {
        let graph = &mut self.graph;
        graph.layers.push(layer.start);
        let info = &graph.info[layer.start as usize..layer.end as usize];
        if graph.par.is_none() && info.iter().any(|&i| i & WIN != 0) {
            graph.par = Some(graph.layers.len() as u32 - 1);
        }
    }
}

/// One board's expansion (see [`Search::expansion`]).
struct Expansion<'a, const K: usize> {
    graph: &'a mut Graph,
    keys: &'a mut Vec<[u32; K]>,
    index: &'a mut Index,
}

impl<const K: usize> Expansion<'_, K> {
    /// Tilts `current` toward `dir` into `next` and, when that is a move, interns the
    /// board and appends the edge: the move's bit, or 0.
    #[inline(always)]
    fn try_move<const W: usize>(
        &mut self,
        current: &[u64; W],
        dir: Dir,
        next: &mut [u64; W],
        tilt: &mut impl FnMut(&[u64; W], Dir, &mut [u64; W]) -> Step,
        is_win: &impl Fn(&[u64; W]) -> bool,
        pack: &impl Fn(&[u64; W]) -> [u32; K],
    ) -> u8 {
        if tilt(current, dir, next) != Step::Moved {
            return 0;
        }
        let key = pack(next);
        let (v, is_new) = self.intern(&key);
        if is_new {
            self.add(&key, is_win(next));
        }
        self.graph.succ.push(v);
        1 << dir.index()
    }

    /// The id of `key`, entered as the next id if new (the caller then adds it).
    #[inline(always)]
    fn intern(&mut self, key: &[u32; K]) -> (u32, bool) {
        let keys = &*self.keys;
        let new_id = self.graph.info.len() as u32;
        self.index.intern_in_room(
            hash_key(key),
            new_id,
            |id| keys[id as usize] == *key,
            |id| hash_key(&keys[id as usize]),
        )
    }

    /// Appends the state [`Expansion::intern`] just entered.
    #[inline(always)]
    fn add(&mut self, key: &[u32; K], win: bool) {
        if win {
            self.graph.wins.push(self.graph.info.len() as u32);
        }
        self.keys.push(*key);
        self.graph.info.push(u8::from(win) * WIN);
    }
}

/// Queues every state from which a win is reachable, by a search back from the `wins`
/// (a win queues itself) with a slot of `queue` per state, each state once; returns how
/// many there are. A function of the tables alone, out of line, so that its loop keeps
/// them in registers.
#[inline(never)]
fn queue_winnable(preds: &PredChains, wins: &[u32], queue: &mut [u32]) -> usize {
    let mut won: Vec<bool> = memory::zeroed(queue.len());
    for (slot, &w) in queue.iter_mut().zip(wins) {
        won[w as usize] = true;
        *slot = w;
    }
    let (mut head, mut queued) = (0, wins.len());
    while head < queued {
        let v = queue[head] as usize;
        head += 1;
        for u in preds.of(v) {
            if !won[u] {
                won[u] = true;
                queue[queued] = u as u32;
                queued += 1;
            }
        }
    }
    queued
}

/// A key's hash, over its words two at a time.
#[inline(always)]
fn hash_key<const K: usize>(key: &[u32; K]) -> u64 {
    let word = |i: usize| key.get(i).map_or(0, |&w| u64::from(w));
    let words = [
        word(0) | word(1) << 32,
        word(2) | word(3) << 32,
        word(4) | word(5) << 32,
    ];
    if K.div_ceil(2) == 2 {
        hash_two(words[0], words[1])
    } else {
        hash_words(&words[..K.div_ceil(2)])
    }
}

impl Graph {
    pub fn len(&self) -> usize {
        self.info.len()
    }

    pub fn is_win(&self, i: usize) -> bool {
        self.info[i] & WIN != 0
    }

    /// The packed key of state `i` (until [`Graph::forget_states`]).
    pub fn key(&self, i: usize) -> &[u32] {
        &self.keys[i * self.stride..(i + 1) * self.stride]
    }

    /// Frees the keys, for a caller that needs only the graph's shape from now on
    /// (distances, counts, the solution walk): the largest table goes before the
    /// distances are measured.
    pub fn forget_states(&mut self) {
        self.keys = Vec::new();
    }

    /// The directions of `u` with a successor, as bits in `Dir::ALL` order.
    fn moves(&self, u: usize) -> u32 {
        u32::from(self.info[u] >> MOVES_SHIFT)
    }

    /// The successor of `u` in each direction, or `NONE`.
    fn row(&self, u: usize) -> [u32; 4] {
        successors::row(&self.succ, &self.marks, u, |w| self.moves(w))
    }

    /// Fewest moves from each state to any win (`UNREACHABLE` when none), by a backward
    /// breadth-first search over the predecessor lists.
    pub fn distance_to_win(&self) -> Vec<u32> {
        let n = self.len();
        let preds = self.predecessors();
        // The search keeps a bit per state and the queue (states by distance); the
        // distances are written once the predecessor lists are gone.
        let mut seen = vec![0u64; n.div_ceil(64)];
        // A slot per state, filled up to `queued`: every state enters the queue once at
        // most, so it never grows.
        let mut queue: Vec<u32> = memory::zeroed(n);
        let mut queued = 0;
        for i in 0..n {
            if self.is_win(i) {
                seen[i / 64] |= 1 << (i % 64);
                queue[queued] = i as u32;
                queued += 1;
            }
        }
        // `bounds[d]`: where distance d + 1 starts in the queue.
        let mut bounds = Vec::new();
        let mut head = 0;
        while head < queued {
            let end = queued;
            bounds.push(end);
            for at in head..end {
                let v = queue[at] as usize;
                for &u in preds.of(v) {
                    let (word, bit) = (u as usize / 64, 1u64 << (u % 64));
                    if seen[word] & bit == 0 {
                        seen[word] |= bit;
                        queue[queued] = u;
                        queued += 1;
                    }
                }
            }
            head = end;
        }
        drop((preds, seen));
        let mut dist = memory::filled(n, UNREACHABLE);
        let mut start = 0;
        for (d, &end) in bounds.iter().enumerate() {
            for &v in &queue[start..end] {
                dist[v as usize] = d as u32;
            }
            start = end;
        }
        dist
    }

    /// The number of moves of `u` that lead to a state: its row's length.
    #[inline(always)]
    fn row_len(&self, u: usize) -> usize {
        successors::row_len(self.moves(u))
    }

    /// Where the row of `u` starts in `succ`.
    fn row_start(&self, u: usize) -> usize {
        successors::row_start(&self.marks, u, |w| self.moves(w))
    }

    fn predecessors(&self) -> Preds {
        Preds::of_rows(self.len(), self.len(), &self.succ, |u| self.moves(u))
    }

    /// Non-winning states from which no win is reachable: the states that
    /// [`queue_winnable`] never queues, over predecessor chains placed in one pass over
    /// the rows (predecessor lists count every edge first). Takes the graph: the rows
    /// are freed once the chains are placed, so that the chains (20 bytes a state) and
    /// the queue are never held with them.
    pub fn dead_ends(mut self) -> u64 {
        let lens = self
            .info
            .iter()
            .map(|&i| successors::row_len(u32::from(i >> MOVES_SHIFT)));
        let preds = PredChains::of_rows(self.len(), &self.succ, lens);
        self.succ = Vec::new();
        let mut queue: Vec<u32> = memory::zeroed(self.len());
        (self.len() - queue_winnable(&preds, &self.wins, &mut queue)) as u64
    }

    /// [`Graph::shortest_win_from`] the start, without the distances: the states one
    /// move closer to a win at each step are the states of the next layer from which a
    /// win is as many moves away as the par leaves, marked over the rows of the layers
    /// before the par, from the last down.
    pub fn shortest_win(&self) -> Option<Vec<Dir>> {
        let par = self.par? as usize;
        let starts = |d: usize| self.layers[d] as usize;
        let end = self.layers.get(par + 1).map_or(self.len(), |&f| f as usize);
        let mut on_time: Vec<bool> = (0..end)
            .map(|i| i >= starts(par) && self.is_win(i))
            .collect();
        let mut row_end = self.row_start(starts(par));
        for depth in (0..par).rev() {
            let next_layer = starts(depth + 1) as u32;
            for u in (starts(depth)..starts(depth + 1)).rev() {
                let start = row_end - self.row_len(u);
                on_time[u] = self.succ[start..row_end]
                    .iter()
                    .any(|&v| v >= next_layer && on_time[v as usize]);
                row_end = start;
            }
        }
        let mut at = 0;
        let moves = (0..par).map(|depth| {
            let next_layer = starts(depth + 1) as u32;
            let row = self.row(at);
            let dir = Dir::ALL
                .into_iter()
                .find(|d| {
                    let v = row[d.index()];
                    v != NONE && v >= next_layer && on_time[v as usize]
                })
                .expect("a state on a shortest win has a step closer");
            at = row[dir.index()] as usize;
            dir
        });
        Some(moves.collect())
    }

    /// Fewest moves to win from the start, as the breadth-first search met it.
    #[cfg(test)]
    fn par(&self) -> Option<u32> {
        self.par
    }

    /// Shortest winning sequences from the start, saturating at `cap`. Counted here,
    /// over the rows of the layers before the par, and not while exploring: a search
    /// that gives up never needs them, and they were a tenth of its memory at the cap.
    pub fn optimal_paths(&self, cap: u64) -> u64 {
        let Some(par) = self.par else { return 0 };
        let par = par as usize;
        let starts = |d: usize| self.layers[d] as usize;
        let end = self.layers.get(par + 1).map_or(self.len(), |&f| f as usize);
        let cap32 = cap.min(u64::from(u32::MAX)) as u32;
        let mut paths: Vec<u32> = memory::zeroed(end);
        paths[0] = 1;
        // Rows are in id order, and every state before the par layer has one.
        let mut at = 0;
        for depth in 0..par {
            let next_layer = starts(depth + 1) as u32;
            for u in starts(depth)..starts(depth + 1) {
                let row = &self.succ[at..at + self.row_len(u)];
                at += row.len();
                for &v in row.iter().filter(|&&v| v >= next_layer) {
                    let sum = u64::from(paths[v as usize]) + u64::from(paths[u]);
                    paths[v as usize] = sum.min(u64::from(cap32)) as u32;
                }
            }
        }
        let wins = (starts(par)..end).filter(|&i| self.is_win(i));
        wins.fold(0u64, |acc, i| acc + u64::from(paths[i])).min(cap)
    }

    /// One shortest winning sequence from `from`: at each state the first direction (in
    /// `Dir::ALL` order) that gets one move closer to a win.
    #[cfg(test)]
    pub fn shortest_win_from(&self, from: u32, dist: &[u32]) -> Option<Vec<Dir>> {
        if dist[from as usize] == UNREACHABLE {
            return None;
        }
        let mut moves = Vec::with_capacity(dist[from as usize] as usize);
        let mut at = from as usize;
        while dist[at] > 0 {
            let row = self.row(at);
            let (dir, next) = Dir::ALL
                .into_iter()
                .map(|d| (d, row[d.index()]))
                .find(|&(_, v)| v != NONE && dist[v as usize] == dist[at] - 1)
                .expect("a state at finite distance has a step closer");
            moves.push(dir);
            at = next as usize;
        }
        Some(moves)
    }

    /// [`Graph::dead_ends`] read off the distances: the test's oracle.
    #[cfg(test)]
    pub fn dead_ends_by_distance(&self, dist: &[u32]) -> u64 {
        (0..self.len())
            .filter(|&i| !self.is_win(i) && dist[i] == UNREACHABLE)
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Stop;

    /// Keys are the states themselves.
    type Plain = Codec<fn(&[u64; 1]) -> [u32; 1], fn(&[u32; 1]) -> [u64; 1]>;

    fn same() -> Plain {
        Codec {
            pack: |s| [s[0] as u32],
            unpack: |k| [u64::from(k[0])],
        }
    }

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
        let limits = Limits::states(100);
        let g = explore(&[2], &limits, counter_tilt, |s| s[0] == 5, same()).unwrap();
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
        assert_eq!(g.dead_ends_by_distance(&dist), 1);
        // From 3 (state 1): U to 4, D to 2; L loses and R does nothing, so no edge.
        assert_eq!(g.row(1), [3, 0, NONE, NONE]);
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
        let limits = Limits::states(10);
        let g = explore(&[1], &limits, tilt, |s| s[0] == 2, same()).unwrap();
        let dist = g.distance_to_win();
        assert_eq!(g.shortest_win_from(0, &dist), Some(vec![Dir::D]));
        assert_eq!(g.dead_ends_by_distance(&dist), 1);
    }

    #[test]
    fn state_budget_is_enforced() {
        let limits = Limits::states(2);
        let err = explore(&[2], &limits, counter_tilt, |s| s[0] == 5, same()).err();
        assert_eq!(err, Some(Exhausted::States(2)));
    }

    /// The cap, checked a layer ahead, is still a count of the states expanded: a budget
    /// of exactly those of a complete search is enough, one fewer is not.
    #[test]
    fn the_budget_counts_the_states_expanded() {
        let search = |limits: &Limits| explore(&[2], limits, counter_tilt, |s| s[0] == 5, same());
        let complete = search(&Limits::states(100)).unwrap();
        // States 2, 3, 1, 4, 0 expanded; 5 is the win.
        assert_eq!(complete.expanded, 5);
        assert_eq!(search(&Limits::states(5)).unwrap().expanded, 5);
        assert_eq!(search(&Limits::states(4)).err(), Some(Exhausted::States(4)));
    }

    #[test]
    fn a_stop_request_ends_the_search() {
        let stop = Stop::never();
        stop.cancel();
        let limits = Limits {
            max_states: 100,
            stop: &stop,
        };
        let err = explore(&[2], &limits, counter_tilt, |s| s[0] == 5, same()).err();
        assert_eq!(err, Some(Exhausted::Stopped));
    }
}
