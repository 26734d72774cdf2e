//! The analyser: the complete state graph reachable from the start, then backward
//! breadth-first passes over it for the figures of games/src/skiddy/README.md.
//!
//! A state is a board position (a 96-bit [`State`]). The combo needs no extra bits in
//! it: a colour's combo is broken exactly when some but not all of its skiddies are in
//! play, so a path earns the combo exactly when every state on it is *intact* (each
//! colour has all or none of its skiddies) — `combo_par` is a shortest path inside the
//! intact states, and `breakable` asks whether a non-intact state can still win.
//!
//! Memory is what bounds a verification (docs/reliability.md), so every table is dense:
//! a state costs its 12-byte position, one byte of flags and moves, 4 bytes per move
//! that changes something, and a 4-byte slot of the index at most 75 % full; the index
//! is gone and the positions freed before the backward passes build their predecessor
//! chains, and the rows past the par layer go once the chains hold the edges.

use crate::core::{Dir, Exhausted, Limits};
#[cfg(target_arch = "x86_64")]
use crate::cpu::bit_instructions;
use crate::index::{Index, hash_two};
use crate::memory;
use crate::successors::{self, MARK, PredChains, Preds};

use super::rules::{Board, COLOURS, RED, State};

/// No successor in that direction: the move changes nothing.
pub const SAME: u32 = successors::NONE;
pub const UNREACHABLE: u32 = u32::MAX;

const WIN: u8 = 1;
const INTACT: u8 = 2;
/// Set by [`Graph::findings`]: a win is reachable from the state.
const WINNABLE: u8 = 4;
/// Set by [`Graph::findings`]: the state is on a shortest win from the start.
const SHORTEST: u8 = 8;
/// Set and cleared again by the combo's search ([`Graph::combo`]), after `SHORTEST` is
/// cleared.
const SEEN: u8 = SHORTEST;
/// The high nibble of a state's info byte: one bit per direction (in `Dir::ALL` order)
/// whose move changes something.
const MOVES_SHIFT: u32 = 4;
/// The length of a state's row by its info byte: the popcount of its move bits, one load.
const ROW_LENS: [u8; 256] = {
    let mut lens = [0; 256];
    let mut info = 0;
    while info < 256 {
        lens[info] = (info >> MOVES_SHIFT).count_ones() as u8;
        info += 1;
    }
    lens
};
/// States expanded together (see [`explore`]).
const BATCH: usize = 32;

/// A position's hash: its three words as two.
#[inline]
fn hash(state: State) -> u64 {
    let [a, b, c] = state.0;
    hash_two(u64::from(a) | u64::from(b) << 32, u64::from(c))
}

/// The id of `key` in `index`, entered as the next id (`keys.len()`) if new; the flag
/// says whether it was new.
#[inline(always)]
fn intern(index: &mut Index, key: State, hash: u64, keys: &[State]) -> (u32, bool) {
    index.intern(
        hash,
        keys.len() as u32,
        |id| keys[id as usize] == key,
        |id| self::hash(keys[id as usize]),
    )
}

/// Skiddies per colour (index code - 1).
pub fn colour_counts(state: State) -> [u32; COLOURS] {
    std::array::from_fn(|c| state.mask(RED + c as u8).count_ones())
}

/// The reachable state graph; ids are in breadth-first order, the start is 0.
pub struct Graph {
    /// Positions by id; [`Graph::findings`] frees them before its passes.
    keys: Vec<State>,
    /// Per state: `WIN`, `INTACT`, and the directions with a successor (`MOVES_SHIFT`).
    info: Vec<u8>,
    /// The successors of every expanded state in id order, each state's in `Dir::ALL`
    /// order; moves that change nothing are left out (a quarter of them).
    succ: Vec<u32>,
    /// Where in `succ` the successors of states `MARK * i..` start: with the move bits,
    /// any state's row at the cost of a few popcounts, for well under a byte a state.
    marks: Vec<u32>,
    /// The first id of each depth (moves from the start): ids are breadth-first, so a
    /// state's depth is the layer its id falls in.
    layers: Vec<u32>,
    /// The winning states, by id.
    wins: Vec<u32>,
    /// States whose successors are recorded.
    rows: usize,
    /// States whose moves were computed: every non-winning state.
    pub expanded: u64,
}

/// Explores every state reachable from `start`, within the state budget.
pub fn explore(board: &Board, start: State, limits: &Limits) -> Result<Graph, Exhausted> {
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the instructions they are compiled for were just detected.
        return unsafe {
            if limits.max_states >= LINE_TABLES_FROM {
                explore_by_lines(board, start, limits)
            } else {
                explore_with_bit_instructions(board, start, limits)
            }
        };
    }
    explore_with(board, start, limits)
}

/// State budgets from which a search moves by line tables (see [`lines`](super::lines)):
/// filling them costs a small search's worth, so the generator's searches go without.
#[cfg(target_arch = "x86_64")]
const LINE_TABLES_FROM: u64 = 1 << 17;

/// [`explore_with`] compiled with the bit instructions of x86-64 CPUs since 2013 (bit
/// scans, popcounts and shifts by a register in one instruction each): the same search
/// in fewer instructions. The baseline target may not assume them: they are chosen at
/// run time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
fn explore_with_bit_instructions(
    board: &Board,
    start: State,
    limits: &Limits,
) -> Result<Graph, Exhausted> {
    explore_with(board, start, limits)
}

/// The same search again, its moves by line tables (they need BMI2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
fn explore_by_lines(board: &Board, start: State, limits: &Limits) -> Result<Graph, Exhausted> {
    explore_with(super::lines::LineMoves::new(board), start, limits)
}

/// The four moves of a state.
trait Moves {
    /// Hands each move that changes something to `take` with its direction's index, in
    /// `Dir::ALL` order.
    fn each_tilt(&mut self, state: State, take: impl FnMut(usize, State));
}

impl Moves for &Board {
    #[inline(always)]
    fn each_tilt(&mut self, state: State, mut take: impl FnMut(usize, State)) {
        for (d, next) in Board::tilts(self, state).into_iter().enumerate() {
            if next != state {
                take(d, next);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Moves for super::lines::LineMoves<'_> {
    #[inline(always)]
    fn each_tilt(&mut self, state: State, take: impl FnMut(usize, State)) {
        // SAFETY: line tables are made only in `explore_by_lines`, run with BMI2.
        unsafe { super::lines::LineMoves::each_tilt(self, state, take) }
    }
}

#[inline(always)]
fn explore_with(mut moves: impl Moves, start: State, limits: &Limits) -> Result<Graph, Exhausted> {
    let full = colour_counts(start);
    let classify = |s: State| {
        let intact = colour_counts(s)
            .iter()
            .zip(&full)
            .all(|(&n, &all)| n == 0 || n == all);
        (u8::from(Board::is_win(s)) * WIN) | (u8::from(intact) * INTACT)
    };
    // Room for everything the budget can reach, up to 2^26 entries: an expanded state
    // adds at most four states and four edges. Memory is only touched when used, and a
    // vector that outgrew its room was copied, holding both copies at once (that copy
    // was the peak of a verification at its cap). The generator's budgets (100,000 at
    // most) keep room for the budget alone: small tables that the allocator reuses.
    let per_state = if limits.max_states < 1 << 17 { 1 } else { 4 };
    let room = limits
        .max_states
        .saturating_mul(per_state)
        .saturating_add(1)
        .min(1 << 26) as usize;
    let mut graph = Graph {
        keys: memory::with_capacity(room),
        info: memory::with_capacity(room),
        succ: memory::with_capacity(room),
        marks: Vec::with_capacity(room / 4 / MARK + 1),
        layers: vec![0],
        wins: Vec::new(),
        rows: 0,
        expanded: 0,
    };
    let mut index = Index::default();
    intern(&mut index, start, hash(start), &graph.keys);
    graph.push(start, classify(start));
    // States are expanded in batches, one batch ahead of the interning: while the
    // successors of one batch are interned, the home lines of the next batch's are
    // already on their way, so the cache misses overlap with work instead of queueing.
    // Ids are still given in the order of the states and directions.
    let (mut first, mut second) = (Batch::new(), Batch::new());
    // Swapped by reference: the batches are arrays, too big to copy every round.
    let (mut pending, mut next) = (&mut first, &mut second);
    pending.expand(0, &mut graph, &mut moves, &index, limits)?;
    while !pending.states.is_empty() {
        next.expand(pending.states.end, &mut graph, &mut moves, &index, limits)?;
        pending.intern(&mut graph, &mut index, &classify);
        std::mem::swap(&mut pending, &mut next);
        if pending.states.is_empty() {
            // The frontier had run dry before the interning found new states.
            pending.expand(graph.rows, &mut graph, &mut moves, &index, limits)?;
        }
    }
    Ok(graph)
}

/// Up to [`BATCH`] consecutive states and their successors: per state the directions
/// that change something, marked in `moves`, and those moves' successors one after the
/// other (each state's in `Dir::ALL` order) with their hashes; fixed arrays, written in
/// place.
struct Batch {
    states: std::ops::Range<usize>,
    successors: [State; 4 * BATCH],
    hashes: [u64; 4 * BATCH],
    /// Successors found.
    found: usize,
    /// Per state: where its successors start in `successors`.
    starts: [u8; BATCH],
    /// Per state: one bit per direction whose move changes something (none for a win).
    moves: [u8; BATCH],
    /// The successors' ids, as interned.
    ids: [u32; 4 * BATCH],
}

impl Batch {
    fn new() -> Batch {
        Batch {
            states: 0..0,
            successors: [State::default(); 4 * BATCH],
            hashes: [0; 4 * BATCH],
            found: 0,
            starts: [0; BATCH],
            moves: [0; BATCH],
            ids: [0; 4 * BATCH],
        }
    }

    /// Takes the known states from `from` on (every one before it is expanded), computes
    /// their moves and prefetches each successor's home line as soon as it is known: one
    /// miss at a time between the tilts, where a burst of a whole batch's prefetches
    /// stalled on the few outstanding misses a core can track.
    #[inline(always)]
    fn expand(
        &mut self,
        from: usize,
        graph: &mut Graph,
        moves: &mut impl Moves,
        index: &Index,
        limits: &Limits,
    ) -> Result<(), Exhausted> {
        self.states = from..(from + BATCH).min(graph.keys.len());
        // Counted in locals: kept in the structs, they were reloaded after every store (a
        // search that runs out of states drops the graph, so its count need not be kept).
        let mut found = 0;
        let mut expanded = graph.expanded;
        for (k, u) in self.states.clone().enumerate() {
            self.starts[k] = found as u8;
            let mut changed = 0;
            if graph.info[u] & WIN == 0 {
                expanded += 1;
                moves.each_tilt(graph.keys[u], |d, next| {
                    let hash = hash(next);
                    self.successors[found] = next;
                    self.hashes[found] = hash;
                    found += 1;
                    index.prefetch(hash);
                    changed |= 1 << d;
                });
            }
            self.moves[k] = changed;
        }
        // The cap once a batch, and the stop request once `STOP_CHECKS` states have passed.
        limits.check_cap(expanded)?;
        let stop_checks = Limits::STOP_CHECKS;
        if expanded / stop_checks != graph.expanded / stop_checks {
            limits.check_stop()?;
        }
        graph.expanded = expanded;
        self.found = found;
        Ok(())
    }

    /// Gives the successors their ids (new states are appended) and records the edges.
    #[inline(always)]
    fn intern(&mut self, graph: &mut Graph, index: &mut Index, classify: &impl Fn(State) -> u8) {
        let first_edge = graph.succ.len();
        for (k, u) in self.states.clone().enumerate() {
            if u % MARK == 0 {
                graph
                    .marks
                    .push((first_edge + usize::from(self.starts[k])) as u32);
            }
            graph.info[u] |= self.moves[k] << MOVES_SHIFT;
        }
        graph.rows += self.states.len();
        // The first new state found from the last layer starts the next one: successors
        // from `deeper` on come from it (ids are breadth-first, and a new id is beyond
        // every state of the batch, so a batch starts at most one layer).
        let layer = *graph.layers.last().expect("layer 0") as usize;
        let deeper = match layer.checked_sub(self.states.start) {
            None => 0,
            Some(k) if k < self.states.len() => usize::from(self.starts[k]),
            Some(_) => usize::MAX,
        };
        let old = graph.keys.len();
        let (found, ids) = (self.found, &mut self.ids[..self.found]);
        index.intern_all(
            &mut graph.keys,
            &self.successors[..found],
            &self.hashes[..found],
            ids,
            |&key| hash(key),
        );
        graph.succ.extend_from_slice(ids);
        // New ids are given in order, so the first one from `deeper` on follows every id
        // before it.
        if let Some(before) = ids.get(..deeper) {
            let first_deeper = before
                .iter()
                .map(|&id| id as usize + 1)
                .fold(old, usize::max);
            if first_deeper < graph.keys.len() {
                graph.layers.push(first_deeper as u32);
            }
        }
        for id in old..graph.keys.len() {
            graph.push_info(classify(graph.keys[id]));
        }
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
    /// Appends a new state, with its `WIN` and `INTACT` flags.
    #[inline(always)]
    fn push(&mut self, state: State, flags: u8) {
        if flags & WIN != 0 {
            self.wins.push(self.info.len() as u32);
        }
        self.keys.push(state);
        self.info.push(flags);
    }

    /// Appends the flags of a state whose key is already in `keys`.
    #[inline(always)]
    fn push_info(&mut self, flags: u8) {
        if flags & WIN != 0 {
            self.wins.push(self.info.len() as u32);
        }
        self.info.push(flags);
    }

    pub fn len(&self) -> usize {
        self.info.len()
    }

    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }

    pub fn is_win(&self, i: usize) -> bool {
        self.info[i] & WIN != 0
    }

    pub fn is_intact(&self, i: usize) -> bool {
        self.info[i] & INTACT != 0
    }

    pub fn state(&self, i: usize) -> State {
        self.keys[i]
    }

    /// The directions of `u` with a successor, as bits in `Dir::ALL` order.
    fn moves(&self, u: usize) -> u32 {
        u32::from(self.info[u] >> MOVES_SHIFT)
    }

    /// The successor of `u` in each direction, or `SAME`.
    fn row(&self, u: usize) -> [u32; 4] {
        successors::row(&self.succ, &self.marks, u, |w| self.moves(w))
    }

    pub fn predecessors(&self) -> Preds {
        Preds::of_rows(self.len(), self.rows, &self.succ, |u| self.moves(u))
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
            let next = dist[v] + 1;
            for &u in preds.of(v) {
                let u = u as usize;
                if dist[u] == UNREACHABLE && pass(u) {
                    dist[u] = next;
                    queue.push(u as u32);
                }
            }
        }
        dist
    }

    /// One shortest way to a win from `from`, where `steps(v)` is the fewest moves from
    /// `v` to a win (`UNREACHABLE` when none): at each state the first direction (in
    /// `Dir::ALL` order) whose successor is one step closer and admitted by `pass`.
    pub fn descend(
        &self,
        from: usize,
        steps: impl Fn(usize) -> u32,
        pass: impl Fn(usize) -> bool,
    ) -> Vec<Dir> {
        let mut moves = Vec::with_capacity(steps(from) as usize);
        let mut at = from;
        while steps(at) > 0 {
            let row = self.row(at);
            let (dir, next) = Dir::ALL
                .into_iter()
                .map(|d| (d, row[d.index()]))
                .find(|&(_, v)| v != SAME && steps(v as usize) == steps(at) - 1 && pass(v as usize))
                .expect("a state at finite distance has a step closer");
            moves.push(dir);
            at = next as usize;
        }
        moves
    }

    /// The ids of the states `depth` moves from the start.
    fn layer(&self, depth: usize) -> std::ops::Range<usize> {
        let end = self
            .layers
            .get(depth + 1)
            .map_or(self.len(), |&f| f as usize);
        self.layers[depth] as usize..end
    }

    /// The moves from the start to `u`: the layer its id falls in.
    fn depth(&self, u: usize) -> usize {
        self.layers.partition_point(|&f| f as usize <= u) - 1
    }

    /// The combo's par (the fewest moves to a win through intact states) and, when it
    /// is the `par`, a shortest win through intact states. The search back from the wins
    /// through intact states goes by layers of moves to a win, marking `SEEN`, and stops
    /// at the layer that reaches the start; the way down then marks one layer at a time
    /// instead of keeping distances: a state one move closer is in the layer below, and
    /// every state in it is intact. `queue` has a slot per state.
    fn combo(
        &mut self,
        preds: &PredChains,
        queue: &mut [u32],
        par: Option<usize>,
    ) -> (Option<usize>, Option<Vec<Dir>>) {
        if self.is_win(0) {
            return (Some(0), Some(Vec::new()));
        }
        let (queued, starts) = self.combo_layers(preds, queue);
        let queue = &queue[..queued];
        for &v in queue {
            self.info[v as usize] &= !SEEN;
        }
        let Some(starts) = starts else {
            return (None, None);
        };
        let combo_par = starts.len() - 1;
        if Some(combo_par) != par {
            return (Some(combo_par), None);
        }
        let mut at = 0;
        let moves = starts.windows(2).rev().map(|layer| {
            let layer = &queue[layer[0]..layer[1]];
            layer.iter().for_each(|&v| self.info[v as usize] |= SEEN);
            let row = self.row(at);
            let dir = Dir::ALL
                .into_iter()
                .find(|d| row[d.index()] != SAME && self.info[row[d.index()] as usize] & SEEN != 0)
                .expect("a state of a layer has a successor in the layer below");
            layer.iter().for_each(|&v| self.info[v as usize] &= !SEEN);
            at = row[dir.index()] as usize;
            dir
        });
        (Some(combo_par), Some(moves.collect()))
    }

    /// The search of [`Graph::combo`]: how many states it reached (the first
    /// entries of `queue`, marked `SEEN`) and, if the start is among them, where each
    /// layer below the start's begins in the queue (`starts[k]..starts[k + 1]` at k
    /// moves).
    fn combo_layers(
        &mut self,
        preds: &PredChains,
        queue: &mut [u32],
    ) -> (usize, Option<Vec<usize>>) {
        for (slot, &w) in queue.iter_mut().zip(&self.wins) {
            self.info[w as usize] |= SEEN;
            *slot = w;
        }
        let mut queued = self.wins.len();
        let mut starts = vec![0];
        let mut head = 0;
        while head < queued {
            let end = queued;
            starts.push(end);
            for at in head..end {
                for u in preds.of(queue[at] as usize) {
                    let info = &mut self.info[u];
                    if *info & (SEEN | INTACT) == INTACT {
                        *info |= SEEN;
                        queue[queued] = u as u32;
                        queued += 1;
                        if u == 0 {
                            return (queued, Some(starts));
                        }
                    }
                }
            }
            head = end;
        }
        (queued, None)
    }

    /// Marks `SHORTEST` the states on a shortest win from the start (`par` moves): the
    /// wins of the par layer, then layer by layer up to the start the states with a
    /// marked successor in the next layer. Ids are breadth-first, so a successor is in
    /// the next layer exactly when its id is past the next layer's first.
    fn mark_shortest(&mut self, par: usize) {
        for w in self.layer(par) {
            if self.is_win(w) {
                self.info[w] |= SHORTEST;
            }
        }
        for depth in (0..par).rev() {
            let next_layer = self.layers[depth + 1];
            let states = self.layer(depth);
            let mut at = successors::row_start(&self.marks, states.start, |w| self.moves(w));
            for u in states {
                let end = at + successors::row_len(self.moves(u));
                let on = self.succ[at..end]
                    .iter()
                    .any(|&v| v >= next_layer && self.info[v as usize] & SHORTEST != 0);
                self.info[u] |= u8::from(on) * SHORTEST;
                at = end;
            }
        }
    }

    /// Fewest moves from `v` to a win for a state marked by [`Graph::mark_shortest`]
    /// (`UNREACHABLE` for the others): what [`Graph::descend`] needs of a shortest win.
    fn shortest_steps(&self, par: usize, v: usize) -> u32 {
        if self.info[v] & SHORTEST == 0 {
            return UNREACHABLE;
        }
        (par - self.depth(v)) as u32
    }

    /// Move sequences of exactly `par` moves from the start to a win, saturating at `cap`
    /// (counted in 32 bits: a cap above `u32::MAX` counts up to `u32::MAX` per state),
    /// forward over the rows of the states [`Graph::mark_shortest`] marked: every step of
    /// such a sequence is from a marked state to a marked state of the next layer.
    fn count_shortest_wins(&self, par: usize, cap: u64) -> u64 {
        let mut paths: Vec<u32> = memory::zeroed(self.layer(par).end);
        paths[0] = 1;
        let cap32 = u32::try_from(cap).unwrap_or(u32::MAX);
        for depth in 0..par {
            let next_layer = self.layers[depth + 1];
            let states = self.layer(depth);
            let mut at = successors::row_start(&self.marks, states.start, |w| self.moves(w));
            for u in states {
                let end = at + successors::row_len(self.moves(u));
                if self.info[u] & SHORTEST != 0 {
                    for &v in &self.succ[at..end] {
                        if v >= next_layer && self.info[v as usize] & SHORTEST != 0 {
                            let v = v as usize;
                            paths[v] = paths[v].saturating_add(paths[u]).min(cap32);
                        }
                    }
                }
                at = end;
            }
        }
        let wins = self.layer(par).filter(|&w| self.is_win(w));
        wins.fold(0u64, |total, w| (total + u64::from(paths[w])).min(cap))
    }

    /// The rules' figures for the start (state 0). Takes the graph: its positions are
    /// freed before the passes. No pass keeps distances: one search back from the wins
    /// marks the states that can win (the dead ends are the rest), the combo's search
    /// keeps its layers until it reaches the start, and the par, a shortest win and
    /// their count come from the layers of the search from the start.
    pub fn findings(mut self, solution_cap: u64) -> Findings {
        self.keys = Vec::new();
        // Every state enters a search's queue once at most: a slot each, untouched (so
        // taking no memory) until a search writes it.
        let mut queue: Vec<u32> = memory::zeroed(self.len());
        // Ids are breadth-first and the wins listed by id: the first is the nearest.
        let par = self.wins.first().map(|&w| self.depth(w as usize));
        let (shortest, solution_count) = match par {
            Some(p) => {
                self.mark_shortest(p);
                let solution = self.descend(0, |v| self.shortest_steps(p, v), |_| true);
                let count = self.count_shortest_wins(p, solution_cap);
                self.clear_shortest(p);
                (Some(solution), count)
            }
            None => (None, 0),
        };
        let lens = self.info[..self.rows]
            .iter()
            .map(|&i| usize::from(ROW_LENS[usize::from(i)]));
        let preds = PredChains::of_rows(self.len(), &self.succ, lens);
        self.keep_rows_before(par);
        let (winnable, breakable) = mark_winnable(&mut self.info, &preds, &self.wins, &mut queue);
        let (combo_par, combo_solution) = self.combo(&preds, &mut queue, par);
        Findings {
            par: par.map(|p| p as u32),
            combo_par: combo_par.map(|c| c as u32),
            solution: combo_solution.or(shortest),
            solution_count,
            dead_ends: (self.len() - winnable) as u64,
            real_states: (self.len() - self.wins.len()) as u64,
            breakable,
            expanded: self.expanded,
        }
    }

    /// Frees the rows of the states from the par layer on (all of them without a par):
    /// the searches back from the wins go over the predecessor chains, and only a
    /// combo's solution as long as the par still reads rows, of states before its layer.
    /// Shrinking a table that the kernel maps gives the rest back without a copy.
    fn keep_rows_before(&mut self, par: Option<usize>) {
        let end = par.map_or(0, |p| {
            successors::row_start(&self.marks, self.layers[p] as usize, |w| self.moves(w))
        });
        self.succ.truncate(end);
        self.succ.shrink_to_fit();
    }

    /// Clears what [`Graph::mark_shortest`] marked, for the combo's search.
    fn clear_shortest(&mut self, par: usize) {
        let end = self.layer(par).end;
        for info in &mut self.info[..end] {
            *info &= !SHORTEST;
        }
    }
}

/// Marks `WINNABLE` in `info` every state from which a win is reachable, by a search
/// back from the `wins` (a win reaches itself) with a slot of `queue` per state; returns
/// how many there are, and whether a state that is not intact is among them (wins are,
/// and a win is nobody's predecessor). A function of the tables alone, out of line, so
/// that its loop keeps them in registers.
#[inline(never)]
fn mark_winnable(
    info: &mut [u8],
    preds: &PredChains,
    wins: &[u32],
    queue: &mut [u32],
) -> (usize, bool) {
    for (slot, &w) in queue.iter_mut().zip(wins) {
        info[w as usize] |= WINNABLE;
        *slot = w;
    }
    let (mut head, mut queued) = (0, wins.len());
    // The flags of every state marked, ANDed: `INTACT` stays while all of them are.
    let mut all = INTACT;
    while head < queued {
        let v = queue[head] as usize;
        head += 1;
        for u in preds.of(v) {
            let flags = &mut info[u];
            if *flags & WINNABLE == 0 {
                *flags |= WINNABLE;
                all &= *flags;
                queue[queued] = u as u32;
                queued += 1;
            }
        }
    }
    (queued, all == 0)
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
    use crate::core::Difficulty;
    use crate::skiddy::tests::random_level;

    /// What a search found, field by field.
    fn graph_parts(graph: &Graph) -> impl PartialEq + std::fmt::Debug + '_ {
        let Graph {
            keys,
            info,
            succ,
            marks,
            layers,
            wins,
            ..
        } = graph;
        (keys, info, succ, marks, layers, wins)
    }

    /// The portable search, the one with the bit instructions and the one by line tables
    /// build the same graph, state for state and edge for edge (a CPU without BMI2 takes
    /// the first; this one takes the others, so only this test runs the first here).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn every_route_builds_the_same_graph() {
        if !bit_instructions() {
            return;
        }
        let limits = Limits::states(200_000);
        for lv in (200..230).map(random_level) {
            let (board, start) = Board::compile(&lv);
            let portable = explore_with(&board, start, &limits);
            // SAFETY: the instructions were just detected.
            let (bits, lines) = unsafe {
                (
                    explore_with_bit_instructions(&board, start, &limits),
                    explore_by_lines(&board, start, &limits),
                )
            };
            match (portable, bits, lines) {
                (Ok(portable), Ok(bits), Ok(lines)) => {
                    assert_eq!(graph_parts(&portable), graph_parts(&bits));
                    assert_eq!(graph_parts(&portable), graph_parts(&lines));
                }
                (Err(_), Err(_), Err(_)) => {}
                _ => panic!("the routes disagree on whether the budget suffices"),
            }
        }
    }

    /// The figures by distance tables, as [`Graph::findings`] took them before it kept
    /// none but the combo's layers: both searches back from the wins over the
    /// predecessor lists, the dead ends and `breakable` read off the distances, the
    /// solutions down the distances, and the shortest wins counted over the predecessors.
    fn findings_by_distances(graph: &Graph, cap: u64) -> Findings {
        let preds = graph.predecessors();
        let wins = || graph.wins.iter().map(|&w| w as usize);
        let finite = |d: u32| (d != UNREACHABLE).then_some(d);
        let intact = |i: usize| graph.is_intact(i);
        let combo = graph.distances_to(&preds, wins(), intact);
        let dist = graph.distances_to(&preds, wins(), |_| true);
        let (par, combo_par) = (finite(dist[0]), finite(combo[0]));
        let solution = match (par, combo_par) {
            (Some(p), Some(c)) if p == c => Some(graph.descend(0, |v| combo[v], intact)),
            (Some(_), _) => Some(graph.descend(0, |v| dist[v], |_| true)),
            _ => None,
        };
        let reached = |i: usize| dist[i] != UNREACHABLE;
        let n = graph.len();
        Findings {
            par,
            combo_par,
            solution,
            solution_count: par.map_or(0, |p| count_by_predecessors(graph, &preds, p, cap)),
            dead_ends: (0..n).filter(|&i| !reached(i)).count() as u64,
            real_states: (n - graph.wins.len()) as u64,
            breakable: (0..n).any(|i| reached(i) && !graph.is_intact(i) && !graph.is_win(i)),
            expanded: graph.expanded,
        }
    }

    /// Shortest wins of `par` moves, layer by layer over the predecessor lists.
    fn count_by_predecessors(graph: &Graph, preds: &Preds, par: u32, cap: u64) -> u64 {
        let par = par as usize;
        let mut paths = vec![0u32; graph.layer(par).end];
        paths[0] = 1;
        let cap32 = u32::try_from(cap).unwrap_or(u32::MAX);
        let mut total = if par == 0 { 1u64.min(cap) } else { 0 };
        for depth in 1..=par {
            let previous = graph.layer(depth - 1);
            for v in graph.layer(depth) {
                let from_previous = preds
                    .of(v)
                    .iter()
                    .filter(|&&u| previous.contains(&(u as usize)));
                let sum = from_previous.fold(0u32, |sum, &u| {
                    sum.saturating_add(paths[u as usize]).min(cap32)
                });
                paths[v] = sum;
                if depth == par && graph.is_win(v) {
                    total = (total + u64::from(sum)).min(cap);
                }
            }
        }
        total
    }

    /// The findings without distance tables (dead ends and `breakable` from one search
    /// back over the predecessor chains, the combo's solution down its layers, the
    /// shortest win and its count over the layers from the start) are the distance
    /// tables' figures, move for move, on random levels and generated ones, with a cap
    /// that the counts reach and one they do not.
    #[test]
    fn findings_match_the_distance_tables() {
        let limits = Limits::states(1_000_000);
        let generated = Difficulty::ALL.into_iter().map(|difficulty| {
            let stop = crate::core::Stop::never();
            crate::game::generate_level::<crate::skiddy::Skiddy>(difficulty, 7, &stop)
                .unwrap()
                .level
        });
        let levels: Vec<_> = (0..150).map(random_level).chain(generated).collect();
        let (mut counted, mut capped, mut combo_longer) = (0, 0, 0);
        for (i, lv) in levels.iter().enumerate() {
            let (board, start) = Board::compile(lv);
            for cap in [3, 1_000_000] {
                let expected =
                    findings_by_distances(&explore(&board, start, &limits).unwrap(), cap);
                let found = explore(&board, start, &limits).unwrap().findings(cap);
                assert_eq!(found, expected, "level {i}: {:?}", lv.grid);
                counted += u32::from(found.solution_count > 1);
                capped += u32::from(found.solution_count == cap);
                combo_longer += u32::from(found.par.is_some() && found.combo_par != found.par);
            }
        }
        assert!(
            counted > 0 && capped > 0 && combo_longer > 0,
            "{counted} {capped} {combo_longer}"
        );
    }

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
}
