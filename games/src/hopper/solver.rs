//! Breadth-first search over (cell, stars collected, dirt gone): the shortest perfect
//! sequence, one of them, and how many there are of that length.

#[cfg(test)]
use hashbrown::HashMap;
#[cfg(test)]
use rustc_hash::FxBuildHasher;

use super::bounds::Bounds;
use super::rules::{Board, Step};
use crate::core::{Dir, Exhausted, Limits};
use crate::index::{Index, hash_words};

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The shortest perfect sequence, `None` when there is none.
    pub solution: Option<Vec<Dir>>,
    /// Perfect sequences of that length, saturating at the cap.
    pub count: u64,
    /// States expanded.
    pub expanded: u64,
}

/// The states in discovery order (so each layer is a contiguous range), with the parent
/// and the hop that first reached each, and the number of shortest paths to the states of
/// the layer being expanded and of the next one. Per state: the state, its link, and a
/// 4-byte slot of the shared dense index (which holds only a state number; the state is
/// read from `states`).
struct Arena {
    states: Vec<u128>,
    /// The parent's index times four plus the hop (`Dir::index`); `u32::MAX` at the start.
    link: Vec<u32>,
    /// Shortest paths to the states from `base` on.
    paths: Vec<u32>,
    base: usize,
    index: Index,
    /// Path counts saturate here.
    cap: u32,
}

#[inline(always)]
fn hash(state: u128) -> u64 {
    hash_words(&[state as u64, (state >> 64) as u64])
}

impl Arena {
    fn new(start: u128, cap: u64) -> Arena {
        // A solve runs a pass per bound, each with a fresh index: a small one (4 KiB) to
        // start, since zeroing the default's 16 KiB was an eighth of a solve's work.
        let mut index = Index::with_room(768);
        index.intern(
            hash(start),
            0,
            |_| false,
            |_| unreachable!("room for the start"),
        );
        Arena {
            states: vec![start],
            link: vec![u32::MAX],
            paths: vec![1],
            base: 0,
            index,
            cap: cap.min(u64::from(u32::MAX)) as u32,
        }
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    fn paths(&self, i: usize) -> u32 {
        self.paths[i - self.base]
    }

    /// Forgets the path counts before state `begin` (the layers already expanded).
    fn drop_paths_before(&mut self, begin: usize) {
        self.paths.drain(..begin - self.base);
        self.base = begin;
    }

    /// If `to` is known, adds the paths of state `from` to it when it lies in the layer
    /// being built (from `layer_start` on); says whether it was known.
    #[inline]
    fn count_again(&mut self, to: u128, from: usize, layer_start: usize) -> bool {
        let states = &self.states;
        match self.index.find(hash(to), |j| states[j as usize] == to) {
            Some(j) => {
                let j = j as usize;
                if j >= layer_start {
                    let sum = u64::from(self.paths(j)) + u64::from(self.paths(from));
                    self.paths[j - self.base] = sum.min(u64::from(self.cap)) as u32;
                }
                true
            }
            None => false,
        }
    }

    /// Adds the new state `to`, first reached from state `from` by the hop `d`.
    fn add(&mut self, to: u128, from: usize, d: Dir) {
        let index = self.states.len() as u32;
        assert!(index < 1 << 30, "a link holds a state index in 30 bits");
        let states = &self.states;
        self.index
            .intern(hash(to), index, |_| false, |j| hash(states[j as usize]));
        self.states.push(to);
        self.link.push(from as u32 * 4 + d.index() as u32);
        self.paths.push(self.paths(from));
    }

    /// The hops from the start to state `i`.
    fn path_to(&self, mut i: usize) -> Vec<Dir> {
        let mut moves = Vec::new();
        while self.link[i] != u32::MAX {
            moves.push(Dir::ALL[(self.link[i] % 4) as usize]);
            i = (self.link[i] / 4) as usize;
        }
        moves.reverse();
        moves
    }
}

/// Solves a compiled board completely (within the limits).
///
/// Each pass is a breadth-first search that drops every state whose depth plus
/// [`Bounds::lower_bound`] exceeds the pass's bound. A state on a shortest perfect
/// sequence never exceeds `par`, and neither does any state on a shortest path to it, so
/// once the bound reaches `par` the pass finds every shortest perfect sequence at its
/// true depth and counts them exactly. A pass that finds none raises the bound to the
/// smallest figure it dropped (never past `par`); one that dropped nothing proves there
/// is no perfect sequence (states with no bound at all can never win and are just
/// dropped). `expanded` counts the states of every pass.
pub fn solve(board: &Board, limits: &Limits, cap: u64) -> Result<Solved, Exhausted> {
    solve_from(board, board.start_state(), limits, cap)
}

/// As [`solve`], from any state of the board (the position a replay reached).
pub fn solve_from(
    board: &Board,
    start: u128,
    limits: &Limits,
    cap: u64,
) -> Result<Solved, Exhausted> {
    let bounds = Bounds::new(board);
    let mut expanded = 0u64;
    let mut bound = bounds.lower_bound(start);
    while let Some(b) = bound {
        let search = Search {
            board,
            bounds: &bounds,
            bound: b,
            cap,
        };
        match search.run(start, limits, &mut expanded)? {
            Pass::Found(solution, count) => {
                return Ok(Solved {
                    solution: Some(solution),
                    count,
                    expanded,
                });
            }
            Pass::Raise(next) => bound = next,
        }
    }
    Ok(Solved {
        solution: None,
        count: 0,
        expanded,
    })
}

enum Pass {
    /// A shortest perfect sequence and how many there are.
    Found(Vec<Dir>, u64),
    /// None within the bound: the next bound, `None` if nothing was dropped.
    Raise(Option<u32>),
}

/// One bounded pass.
struct Search<'a> {
    board: &'a Board,
    bounds: &'a Bounds,
    bound: u32,
    cap: u64,
}

/// What expanding one layer found.
#[derive(Default)]
struct Layer {
    /// The first winning hop (from which state, which direction).
    first_win: Option<(usize, Dir)>,
    /// Shortest paths that win with a hop from this layer.
    wins: u64,
    /// The smallest depth-plus-bound of the states dropped.
    dropped: Option<u32>,
}

impl Search<'_> {
    fn run(&self, start: u128, limits: &Limits, expanded: &mut u64) -> Result<Pass, Exhausted> {
        let mut arena = Arena::new(start, self.cap);
        let mut layer = 0..1;
        let mut depth = 0u32;
        let mut dropped: Option<u32> = None;
        while !layer.is_empty() {
            let next_start = arena.len();
            arena.drop_paths_before(layer.start);
            let found = self.expand(&mut arena, layer, depth, limits, expanded)?;
            if let Some((i, d)) = found.first_win {
                let mut solution = arena.path_to(i);
                solution.push(d);
                return Ok(Pass::Found(solution, found.wins));
            }
            dropped = min_of(dropped, found.dropped);
            depth += 1;
            layer = next_start..arena.len();
        }
        Ok(Pass::Raise(dropped))
    }

    /// Expands the states of `layer` (all at `depth`), adding the next layer to the arena.
    /// Once a win is seen the next layer is no longer needed, only the wins counted.
    fn expand(
        &self,
        arena: &mut Arena,
        layer: std::ops::Range<usize>,
        depth: u32,
        limits: &Limits,
        expanded: &mut u64,
    ) -> Result<Layer, Exhausted> {
        let next_start = arena.len();
        let mut found = Layer::default();
        for i in layer {
            *expanded += 1;
            limits.tick(*expanded)?;
            let state = arena.states[i];
            for d in Dir::ALL {
                match self.board.step(state, d) {
                    Step::To(to) => {
                        if arena.count_again(to, i, next_start) || found.first_win.is_some() {
                            continue;
                        }
                        match self.bounds.lower_bound(to).map(|lb| depth + 1 + lb) {
                            Some(f) if f <= self.bound => arena.add(to, i, d),
                            f => found.dropped = min_of(found.dropped, f),
                        }
                    }
                    Step::Won => {
                        found.wins = (found.wins + u64::from(arena.paths(i))).min(self.cap);
                        found.first_win.get_or_insert((i, d));
                    }
                    Step::GoalEarly(_) | Step::Fell => {}
                }
            }
        }
        Ok(found)
    }
}

fn min_of(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The textbook search, for tests: breadth-first over every state with no bound.
/// Returns `par` and the number of shortest perfect sequences (saturating at `cap`).
#[cfg(test)]
pub fn reference_solve(board: &Board, cap: u64) -> (Option<u32>, u64) {
    let mut paths: HashMap<u128, u64, FxBuildHasher> = HashMap::default();
    let mut layer = vec![board.start_state()];
    paths.insert(layer[0], 1);
    let mut depth = 0;
    while !layer.is_empty() {
        let mut next = Vec::new();
        let mut wins = 0u64;
        let mut next_paths: HashMap<u128, u64, FxBuildHasher> = HashMap::default();
        for &s in &layer {
            let p = paths[&s];
            for d in Dir::ALL {
                match board.step(s, d) {
                    Step::Won => wins = (wins + p).min(cap),
                    Step::To(t) if !paths.contains_key(&t) => {
                        let e = next_paths.entry(t).or_insert_with(|| {
                            next.push(t);
                            0
                        });
                        *e = (*e + p).min(cap);
                    }
                    _ => {}
                }
            }
        }
        depth += 1;
        if wins > 0 {
            return (Some(depth), wins);
        }
        paths.extend(next_paths);
        layer = next;
    }
    (None, 0)
}
