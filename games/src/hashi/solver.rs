//! The exact solver: counts the drawings of a board up to a cap.
//!
//! A drawing is a set of steps (edges) between orthogonal neighbours, never between two
//! nodes. The rules (games/src/hashi/README.md) hold exactly when: every empty cell has two steps, every node has
//! as many steps as its number, no chain of empty cells closes on itself or runs from a
//! node back to the same node, and the steps join every cell into one network. Two
//! solutions differ exactly when their step sets differ, so counting step sets counts
//! solutions as the rules define them.
//!
//! Search: every edge is on, off or open. Propagation applies only necessary conditions,
//! so no drawing is ever cut away:
//! - degree: a vertex with all its steps turns its open edges off; one with exactly as
//!   many open edges as it still needs turns them all on; one with too few fails;
//! - chains: each chain of empty cells knows its far end (`mate`); an edge that would
//!   close a chain into a loop, or bring a chain back to the node it started from, is
//!   turned off (such an edge is in no drawing);
//! - connectivity: the cells joined by on-or-open edges must be one region, since the
//!   final network is a subset of them.
//!
//! Then it branches on the vertex with the fewest ways to finish (`C(open, needed)`), one
//! branch per subset of its open edges: the branches are disjoint and cover every
//! drawing, so each solution is counted exactly once.

use serde::{Deserialize, Serialize};

use crate::core::{Dir, Exhausted, Limits};

use super::rules::{Board, MAX_CELLS};

const NONE: u8 = u8::MAX;

/// Steps of a drawing: per cell, a mask of directions (bit `Dir::index`).
pub type Steps = Vec<u8>;

/// The board compiled for search.
struct Net {
    n: usize,
    cells: usize,
    /// Steps each vertex needs: 2 for an empty cell, the number for a node.
    target: [u8; MAX_CELLS],
    neighbour: [[u8; 4]; MAX_CELLS],
    /// Directions in which an edge exists: on the board and not between two nodes.
    edges: [u8; MAX_CELLS],
    node: u128,
    everything: u128,
    /// Whether propagation turns off the edges that would close a chain on itself or
    /// back to its node (off only when grading how much reasoning a level needs; the
    /// step is still refused when tried).
    chain_deductions: bool,
}

impl Net {
    fn compile(board: &Board) -> Net {
        let cells = board.cells();
        let mut net = Net {
            n: board.n,
            cells,
            target: [0; MAX_CELLS],
            neighbour: [[NONE; 4]; MAX_CELLS],
            edges: [0; MAX_CELLS],
            node: 0,
            everything: if cells == 128 {
                u128::MAX
            } else {
                (1u128 << cells) - 1
            },
            chain_deductions: true,
        };
        for cell in 0..cells {
            net.target[cell] = if board.is_node(cell) {
                board.number[cell]
            } else {
                2
            };
            if board.is_node(cell) {
                net.node |= 1 << cell;
            }
            for d in Dir::ALL {
                if let Some(nb) = board.neighbour(cell, d) {
                    net.neighbour[cell][d.index()] = nb as u8;
                    if !(board.is_node(cell) && board.is_node(nb)) {
                        net.edges[cell] |= 1 << d.index();
                    }
                }
            }
        }
        net
    }

    fn is_node(&self, v: usize) -> bool {
        self.node & (1 << v) != 0
    }
}

/// The direction index opposite to `d` (U<->D, L<->R).
#[inline]
fn opposite(d: usize) -> usize {
    d ^ 1
}

/// A partial drawing.
#[derive(Clone)]
struct State {
    on: [u8; MAX_CELLS],
    off: [u8; MAX_CELLS],
    /// For an empty cell at the end of a chain: the chain's other end (an empty cell, or
    /// the node the chain is attached to); itself for a cell with no step yet.
    mate: [u8; MAX_CELLS],
    /// Per direction, the cells whose edge that way exists and is not off.
    open: [u128; 4],
}

/// A contradiction: the partial drawing has no completion.
struct Dead;

impl State {
    fn start(net: &Net) -> State {
        let mut state = State {
            on: [0; MAX_CELLS],
            off: [0; MAX_CELLS],
            mate: [0; MAX_CELLS],
            open: [0; 4],
        };
        for cell in 0..net.cells {
            state.mate[cell] = cell as u8;
            for d in 0..4 {
                if net.edges[cell] & (1 << d) != 0 {
                    state.open[d] |= 1 << cell;
                }
            }
        }
        state
    }

    #[inline]
    fn undecided(&self, net: &Net, v: usize) -> u8 {
        net.edges[v] & !self.on[v] & !self.off[v]
    }

    #[inline]
    fn degree(&self, v: usize) -> u8 {
        self.on[v].count_ones() as u8
    }

    /// The far end of the chain through `v`; a node is its own end.
    #[inline]
    fn end(&self, net: &Net, v: usize) -> usize {
        if net.is_node(v) {
            v
        } else {
            self.mate[v] as usize
        }
    }

    fn set_off(&mut self, net: &Net, u: usize, d: usize, dirty: &mut u128) {
        let v = net.neighbour[u][d] as usize;
        self.off[u] |= 1 << d;
        self.off[v] |= 1 << opposite(d);
        self.open[d] &= !(1 << u);
        self.open[opposite(d)] &= !(1 << v);
        *dirty |= (1 << u) | (1 << v);
    }

    fn set_on(&mut self, net: &Net, u: usize, d: usize, dirty: &mut u128) -> Result<(), Dead> {
        let v = net.neighbour[u][d] as usize;
        if self.degree(u) >= net.target[u] || self.degree(v) >= net.target[v] {
            return Err(Dead);
        }
        let (eu, ev) = (self.end(net, u), self.end(net, v));
        // eu == v: u's chain already ends at v (a loop, or back to the same node).
        if eu == v || ev == u || (net.is_node(eu) && eu == ev) {
            return Err(Dead);
        }
        self.on[u] |= 1 << d;
        self.on[v] |= 1 << opposite(d);
        *dirty |= (1 << u) | (1 << v);
        if !net.is_node(eu) {
            self.mate[eu] = ev as u8;
        }
        if !net.is_node(ev) {
            self.mate[ev] = eu as u8;
        }
        if net.chain_deductions {
            self.forbid_closing(net, eu, ev, dirty);
            self.forbid_closing(net, ev, eu, dirty);
        }
        Ok(())
    }

    /// The chain now runs from `p` to `q`; turns off the edges from `p` that would close
    /// it on itself or lead it back to the node `q`.
    fn forbid_closing(&mut self, net: &Net, p: usize, q: usize, dirty: &mut u128) {
        if net.is_node(p) {
            return;
        }
        for d in 0..4 {
            if self.undecided(net, p) & (1 << d) == 0 {
                continue;
            }
            let w = net.neighbour[p][d] as usize;
            let closes = w == q
                || (net.is_node(q)
                    && !net.is_node(w)
                    && self.degree(w) == 1
                    && self.mate[w] as usize == q);
            if closes {
                self.set_off(net, p, d, dirty);
            }
        }
    }

    /// Applies the degree rule until nothing changes, in waves: each wave looks at the
    /// vertices whose surroundings changed in the wave before. Returns the waves taken.
    fn propagate(&mut self, net: &Net, dirty: u128) -> Result<u32, Dead> {
        self.propagate_within(net, dirty, u32::MAX)
    }

    /// As [`State::propagate`], stopping after `most` waves.
    fn propagate_within(&mut self, net: &Net, dirty: u128, most: u32) -> Result<u32, Dead> {
        let (mut current, mut waves) = (dirty, 0);
        while current != 0 && waves < most {
            waves += 1;
            let mut next = 0u128;
            while current != 0 {
                let v = current.trailing_zeros() as usize;
                current &= current - 1;
                self.settle(net, v, &mut next)?;
            }
            current = next;
        }
        Ok(waves)
    }

    /// The degree rule at vertex `v`.
    fn settle(&mut self, net: &Net, v: usize, dirty: &mut u128) -> Result<(), Dead> {
        let have = self.degree(v);
        let open = self.undecided(net, v);
        let need = net.target[v] - have;
        let count = open.count_ones() as u8;
        if need == 0 {
            for d in 0..4 {
                if open & (1 << d) != 0 {
                    self.set_off(net, v, d, dirty);
                }
            }
        } else if count < need {
            return Err(Dead);
        } else if count == need {
            for d in 0..4 {
                if open & (1 << d) == 0 {
                    continue;
                }
                if self.off[v] & (1 << d) != 0 {
                    return Err(Dead);
                }
                if self.on[v] & (1 << d) == 0 {
                    self.set_on(net, v, d, dirty)?;
                }
            }
        }
        Ok(())
    }

    /// Whether every vertex can still be joined into one network.
    fn connected(&self, net: &Net) -> bool {
        let n = net.n as u32;
        let [up, down, left, right] = self.open;
        let mut reach: u128 = 1;
        loop {
            let next = reach
                | ((reach & right) << 1)
                | ((reach & left) >> 1)
                | ((reach & down) << n)
                | ((reach & up) >> n);
            if next == reach {
                return reach == net.everything;
            }
            reach = next;
        }
    }

    fn decided_on(&self, net: &Net) -> u32 {
        (0..net.cells).map(|v| self.on[v].count_ones()).sum::<u32>() / 2
    }
}

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// Solutions counted, saturating at the cap.
    pub count: u64,
    /// The first solutions found (as many as asked for), in search order.
    pub found: Vec<Steps>,
    /// Search nodes expanded (each a partial drawing after propagation).
    pub states: u64,
    /// Search nodes with more than one way on: the guesses propagation could not avoid.
    pub guesses: u64,
    /// The deepest chain of nested guesses.
    pub depth: u32,
    /// Steps of the drawing fixed by propagation alone before the first guess, per mille of
    /// all steps of a solution (1000: the level solves without guessing).
    pub forced_permille: u32,
    /// Waves of propagation before the first guess: the length of the longest chain of
    /// deductions, each needing the one before.
    pub waves: u32,
}

/// How much reasoning a level needs, weakest first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "HashiTechnique")]
pub enum Technique {
    /// Degrees alone: a cell with two possible steps takes both, a node with as many
    /// possible steps as its number takes them all, a full vertex takes no more.
    Degrees,
    /// Degrees, and no step that would close a chain of cells into a loop or lead it
    /// back to the node it started from.
    Chains,
    /// Propagation stalls: the solver has to guess (and backtrack).
    Search,
}

/// The weakest technique whose propagation alone completes the drawing into a solution
/// (`Search` for a board with none).
pub fn technique(board: &Board) -> Technique {
    for (chains, technique) in [(false, Technique::Degrees), (true, Technique::Chains)] {
        let mut net = Net::compile(board);
        net.chain_deductions = chains;
        let mut state = State::start(&net);
        let complete = state.propagate(&net, net.everything).is_ok()
            && (0..net.cells).all(|v| state.degree(v) == net.target[v])
            && state.connected(&net);
        if complete {
            return technique;
        }
    }
    Technique::Search
}

/// What a player's own reasoning makes of a partial drawing ([`deduce`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Deduced {
    /// The drawing breaks a rule that no further link can mend.
    Stuck,
    /// A link not yet drawn that every completion of the drawing has (nodes at its ends).
    Forced(Vec<usize>),
    /// Nothing forced; per cell, the directions of the steps ruled out.
    Open(Steps),
}

/// Reasons from the steps already drawn (`drawn`, a [`Steps`] mask) as a player does: the
/// degree and chain rules, in at most `waves` waves (each wave acts on what the one before
/// found), and whether the cells can still be joined. No guessing: this is the solver's
/// propagation without its search.
pub fn deduce(board: &Board, drawn: &[u8], waves: u32) -> Deduced {
    let net = Net::compile(board);
    let mut state = State::start(&net);
    let mut dirty = 0u128;
    for (u, &steps) in drawn.iter().enumerate().take(net.cells) {
        for d in (0..4).filter(|&d| steps & (1 << d) != 0) {
            let v = net.neighbour[u][d] as usize;
            let known = state.on[u] & (1 << d) != 0;
            if v != NONE as usize && !known && state.set_on(&net, u, d, &mut dirty).is_err() {
                return Deduced::Stuck;
            }
        }
    }
    if state.propagate_within(&net, net.everything, waves).is_err() || !state.connected(&net) {
        return Deduced::Stuck;
    }
    let on = &state.on[..net.cells];
    for a in (0..net.cells).filter(|&v| net.is_node(v)) {
        for d in Dir::ALL {
            if on[a] & !drawn[a] & (1 << d.index()) == 0 {
                continue;
            }
            let link = walk(board, on, a, d);
            let closed = link.last().is_some_and(|&b| b != a && board.is_node(b));
            if closed && link.len() > 2 {
                return Deduced::Forced(link);
            }
        }
    }
    Deduced::Open(state.off[..net.cells].to_vec())
}

/// Counts the solutions of `board` up to `cap`, keeping the first `keep` of them.
pub fn solve(board: &Board, cap: u64, keep: usize, limits: &Limits) -> Result<Search, Exhausted> {
    solve_near(board, cap, keep, None, limits)
}

/// As [`solve`], trying the choices of `prefer` first at every branch: when `prefer` is a
/// solution it is found first, and the next one found differs from it as late in the
/// search as possible, which makes it a local change (what the generator edits away).
/// The count does not depend on the order.
pub fn solve_near(
    board: &Board,
    cap: u64,
    keep: usize,
    prefer: Option<&[u8]>,
    limits: &Limits,
) -> Result<Search, Exhausted> {
    let net = Net::compile(board);
    let mut state = State::start(&net);
    let mut search = Search::default();
    let mut run = Run {
        net: &net,
        cap,
        keep,
        prefer,
        limits,
        search: &mut search,
    };
    let steps_total: u32 = (0..net.cells)
        .map(|v| u32::from(net.target[v]))
        .sum::<u32>()
        / 2;
    let root = state.propagate(&net, net.everything);
    if let Ok(waves) = root
        && state.connected(&net)
    {
        run.search.waves = waves;
        run.search.forced_permille = (state.decided_on(&net) * 1000)
            .checked_div(steps_total)
            .unwrap_or(1000);
        run.expand(&state, 0)?;
    }
    Ok(search)
}

struct Run<'a> {
    net: &'a Net,
    cap: u64,
    keep: usize,
    prefer: Option<&'a [u8]>,
    limits: &'a Limits<'a>,
    search: &'a mut Search,
}

/// `BINOMIAL[n][k]` for n <= 4.
const BINOMIAL: [[u32; 5]; 5] = [
    [1, 0, 0, 0, 0],
    [1, 1, 0, 0, 0],
    [1, 2, 1, 0, 0],
    [1, 3, 3, 1, 0],
    [1, 4, 6, 4, 1],
];

impl Run<'_> {
    /// Explores a propagated, connected partial drawing.
    fn expand(&mut self, state: &State, depth: u32) -> Result<(), Exhausted> {
        self.search.states += 1;
        self.limits.tick(self.search.states)?;
        let Some((v, open, need)) = self.most_constrained(state) else {
            self.search.count += 1;
            if self.search.found.len() < self.keep {
                self.search.found.push(state.on[..self.net.cells].to_vec());
            }
            return Ok(());
        };
        self.search.guesses += 1;
        self.search.depth = self.search.depth.max(depth + 1);
        let first = self.prefer.map_or(0, |p| p[v] & open);
        let order = std::iter::once(first).chain((1u8..16).filter(|&s| s != first));
        for subset in order {
            if subset & !open != 0 || subset.count_ones() != u32::from(need) {
                continue;
            }
            let mut child = state.clone();
            if self.enter(&mut child, v, open, subset).is_ok() {
                self.expand(&child, depth + 1)?;
                if self.search.count >= self.cap {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Turns the edges of `subset` on and the rest of `open` off, then propagates.
    fn enter(&self, child: &mut State, v: usize, open: u8, subset: u8) -> Result<(), Dead> {
        let net = self.net;
        let mut dirty = 0u128;
        for d in 0..4 {
            if open & (1 << d) != 0 && subset & (1 << d) == 0 {
                child.set_off(net, v, d, &mut dirty);
            }
        }
        for d in 0..4 {
            if subset & (1 << d) != 0 {
                if child.off[v] & (1 << d) != 0 {
                    return Err(Dead);
                }
                child.set_on(net, v, d, &mut dirty)?;
            }
        }
        child.propagate(net, dirty)?;
        if child.connected(net) {
            Ok(())
        } else {
            Err(Dead)
        }
    }

    /// The unfinished vertex with the fewest ways to finish; `None` when all are done.
    fn most_constrained(&self, state: &State) -> Option<(usize, u8, u8)> {
        let net = self.net;
        let mut best: Option<(u32, usize, u8, u8)> = None;
        for v in 0..net.cells {
            let need = net.target[v] - state.degree(v);
            if need == 0 {
                continue;
            }
            let open = state.undecided(net, v);
            let ways = BINOMIAL[open.count_ones() as usize][need as usize];
            if best.is_none_or(|(w, ..)| ways < w) {
                best = Some((ways, v, open, need));
                if ways <= 2 {
                    break;
                }
            }
        }
        best.map(|(_, v, open, need)| (v, open, need))
    }
}

/// The links of a drawing as cell lists with the nodes at both ends, each listed once from
/// its end node that comes first in reading order, links in the order of that node and
/// the direction (U, D, L, R) they leave it.
pub fn links_of(board: &Board, steps: &[u8]) -> Vec<Vec<usize>> {
    let mut links = Vec::new();
    for a in (0..board.cells()).filter(|&c| board.is_node(c)) {
        for d in Dir::ALL {
            if steps[a] & (1 << d.index()) == 0 {
                continue;
            }
            let link = walk(board, steps, a, d);
            if link.last().is_some_and(|&b| b > a) {
                links.push(link);
            }
        }
    }
    links
}

/// Follows the chain of steps that leaves node `a` in direction `d` to the node at its end.
fn walk(board: &Board, steps: &[u8], a: usize, d: Dir) -> Vec<usize> {
    let mut link = vec![a];
    let (mut at, mut came) = (a, d);
    while let Some(next) = board.neighbour(at, came) {
        link.push(next);
        if board.is_node(next) || link.len() > board.cells() {
            break;
        }
        let back = 1 << came.opposite().index();
        let Some(out) = Dir::ALL
            .into_iter()
            .find(|o| steps[next] & !back & (1 << o.index()) != 0)
        else {
            break;
        };
        (at, came) = (next, out);
    }
    link
}

/// The steps of a list of links (cell lists with nodes at both ends).
pub fn steps_of(board: &Board, links: &[Vec<usize>]) -> Steps {
    let mut steps = vec![0u8; board.cells()];
    for link in links {
        add_steps(board, &mut steps, link);
    }
    steps
}

/// Adds the steps of one link (a cell list) to `steps`.
pub fn add_steps(board: &Board, steps: &mut [u8], link: &[usize]) {
    for pair in link.windows(2) {
        if let Some(d) = step_between(board, pair[0], pair[1]) {
            steps[pair[0]] |= 1 << d.index();
            steps[pair[1]] |= 1 << d.opposite().index();
        }
    }
}

/// The direction from `a` to its neighbour `b`, if they are neighbours.
pub fn step_between(board: &Board, a: usize, b: usize) -> Option<Dir> {
    Dir::ALL
        .into_iter()
        .find(|&d| board.neighbour(a, d) == Some(b))
}
