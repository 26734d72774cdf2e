//! The Hashi Flow generator, after Pudding Entertainment's working method: grow the board node by
//! node, each link a path through free cells from the network to a new node (or to
//! another node), until every cell is drawn; the node numbers are read off the links.
//! The candidate is kept only when the solver proves it has exactly one solution.
//!
//! What makes that likely, learnt from measuring:
//! - Growth covers the most endangered free cell first (fewest free neighbours), with
//!   short, wall-hugging walks, so that few cells get enclosed; a cell that does is
//!   covered by a repair (a link cut through a neighbouring node, or the cell made a
//!   node that takes over a neighbouring link end), or the links around it are ripped
//!   up and grown again.
//! - Growth avoids *switches*: 2x2 squares whose two parallel steps could turn 90
//!   degrees with every degree kept. A switch is a second drawing waiting to happen;
//!   boards without them have a handful of solutions where boards with them have
//!   thousands (9x9: more than 100 000).
//! - When the solver still finds a second solution, it searches next to the intended
//!   drawing first, so the second solution is a small local change, and the generator
//!   makes a node of a cell where that change steps into a node (see [`divergence`]);
//!   if no such cell can become a node, it rips up the links there and grows them again.

use serde::Serialize;

use super::rules::Board;
use super::solver::{self, Steps, Technique};
use super::{HashiLevel, SOLUTION_CAP};
use crate::core::{Difficulty, Dir, Exhausted, Limits, Rejection, Tier};
use crate::rng::LevelRng;

/// Generator parameters of one tier.
#[derive(Clone, Debug, Serialize)]
pub struct HashiParams {
    /// Board side.
    pub size: u32,
    /// Empty cells, per mille of the board, that growth aims for (inclusive range); the
    /// article's 0.625..0.75 of the board. (Growth stops adding nodes once the budget
    /// this leaves is used up; repairs and uniqueness edits may add a few more.)
    pub free_permille: (u32, u32),
    /// Longest path, in cells, one growth step draws. The article allowed corner to
    /// corner; short steps keep the board dense with clues, which is what makes a level
    /// unique, and the lengths of links still vary since growth may close at any node.
    pub max_link: u32,
    /// Odds per mille that a growth step ends on an existing node rather than a new one
    /// while the node budget lasts (beyond it, an existing node wherever one fits).
    pub join_permille: u32,
    /// Uniqueness edits (a cell at the divergence of a second solution made a node)
    /// before the candidate is given up.
    pub max_edits: u32,
    /// The reasoning a level may need, weakest and strongest (see `technique`).
    pub technique: (Technique, Technique),
    /// Search nodes the solver may need to guess at (`metrics.guesses`), fewest and
    /// most (`None`: no bound).
    pub guesses: (u64, Option<u64>),
    /// Links growth may rip up (to draw a stranded area again) before it gives up.
    pub rip_ups: u32,
}

pub fn tier(difficulty: Difficulty) -> Tier<HashiParams> {
    use Technique::{Chains, Degrees, Search};
    // Beyond easy, the tiers part at the reasoning a level needs: more than degrees, then
    // the solver's guesses, which simulated players feel most (docs/difficulty.md).
    let (size, par_min, par_max, technique, guesses, requires) = match difficulty {
        Difficulty::Easy => (
            5,
            5,
            Some(12),
            (Degrees, Chains),
            (0, Some(0)),
            "solvable without guessing",
        ),
        Difficulty::Medium => (
            6,
            10,
            Some(18),
            (Chains, Search),
            (0, Some(1)),
            "needs more than degrees, and the solver guesses at most once",
        ),
        Difficulty::Hard => (
            7,
            15,
            Some(25),
            (Search, Search),
            (2, Some(3)),
            "the solver guesses two or three times",
        ),
        // `Custom` is never generated (`generate_level` refuses it); the match stays total.
        Difficulty::Expert | Difficulty::Custom => (
            9,
            26,
            None,
            (Search, Search),
            (4, None),
            "the solver guesses at least four times",
        ),
    };
    Tier {
        params: HashiParams {
            size,
            free_permille: (625, 750),
            max_link: 4,
            join_permille: 250,
            max_edits: 12,
            technique,
            guesses,
            rip_ups: 4 * size,
        },
        par_min,
        par_max,
        requires: vec![
            "exactly one solution (solution_count = 1, proven by the exact solver)",
            "the board side is the tier's size",
            requires,
        ],
        max_attempts: 2000,
        max_states: 2_000_000,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot {
    Free,
    Node,
    Link,
}

/// A board under construction: nodes, links (cell lists with nodes at both ends) and the
/// free cells still to cover.
#[derive(Clone)]
struct Sketch {
    shape: Board,
    spot: Vec<Spot>,
    links: Vec<Vec<usize>>,
    /// The steps of `links`.
    steps: Vec<u8>,
    free: usize,
    nodes: usize,
    /// Nodes growth may make before it prefers closing links at existing ones.
    node_budget: usize,
}

/// A link cut through a node to cover a hole (see [`Sketch::splices`]).
#[derive(Clone, Copy, Debug)]
struct Splice {
    hole: usize,
    link: usize,
    /// The cut falls between the link's cells `at` and `at + 1`.
    at: usize,
    node: usize,
}

/// A way to cover a free cell growth could not reach.
#[derive(Clone, Copy, Debug)]
enum Repair {
    Splice(Splice),
    /// The free cell becomes a node and takes over the end of the link at this cell.
    TakeOver(usize, usize),
}

/// How a growth step may close its link.
struct Closing {
    /// Prefer a new node at the end over an existing one.
    want_new: bool,
    /// A new node at the end is allowed at all.
    allow_new: bool,
    /// Refuse links that complete a switch.
    strict: bool,
}

/// Candidate weights by how many free neighbours a cell has (0..=4): tight cells first,
/// so that growth hugs what is already drawn and strands few cells (Warnsdorff's rule).
const TIGHT_FIRST: [u32; 5] = [16, 8, 3, 1, 1];

impl Sketch {
    fn new(n: usize) -> Sketch {
        Sketch {
            shape: Board {
                n,
                number: vec![0; n * n],
            },
            spot: vec![Spot::Free; n * n],
            links: Vec::new(),
            steps: vec![0; n * n],
            free: n * n,
            nodes: 0,
            node_budget: 0,
        }
    }

    fn free_neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        self.shape
            .neighbours(cell)
            .filter(|&nb| self.spot[nb] == Spot::Free)
    }

    fn add_node(&mut self, cell: usize) {
        debug_assert_eq!(self.spot[cell], Spot::Free);
        self.spot[cell] = Spot::Node;
        self.free -= 1;
        self.nodes += 1;
    }

    fn add_link(&mut self, link: Vec<usize>) {
        for &cell in &link[1..link.len() - 1] {
            self.spot[cell] = Spot::Link;
            self.free -= 1;
        }
        solver::add_steps(&self.shape, &mut self.steps, &link);
        self.links.push(link);
    }

    /// Picks one of `cells`, tight ones first; `exclude` are taken as not free.
    fn pick_tight(&self, cells: &[usize], exclude: &[usize], rng: &mut LevelRng) -> usize {
        let weights: Vec<u32> = cells
            .iter()
            .map(|&c| {
                let free = self
                    .free_neighbours(c)
                    .filter(|nb| !exclude.contains(nb))
                    .count();
                TIGHT_FIRST[free]
            })
            .collect();
        cells[rng.weighted(&weights).expect("positive weights")]
    }

    /// The free cell with the fewest free neighbours (ties at random): the one most at
    /// risk of being enclosed, so the next link covers it (Warnsdorff's rule again).
    fn most_endangered(&self, rng: &mut LevelRng) -> Option<usize> {
        let mut best = Vec::new();
        let mut fewest = usize::MAX;
        for cell in (0..self.spot.len()).filter(|&c| self.spot[c] == Spot::Free) {
            let free = self.free_neighbours(cell).count();
            if free < fewest {
                fewest = free;
                best.clear();
            }
            if free == fewest {
                best.push(cell);
            }
        }
        rng.pick(&best).copied()
    }

    /// One growth step: a link through the most endangered free cell, drawn from a node
    /// next to it, or from the cell itself made a new node and linked into the network.
    /// With `strict`, only links that complete no switch. False when none is found.
    fn grow_link(&mut self, params: &HashiParams, strict: bool, rng: &mut LevelRng) -> bool {
        const TRIES: usize = 3;
        let Some(target) = self.most_endangered(rng) else {
            return false;
        };
        let want_new = self.wants_new_node(params, rng);
        let mut anchors: Vec<usize> = self
            .shape
            .neighbours(target)
            .filter(|&nb| self.spot[nb] == Spot::Node)
            .collect();
        rng.shuffle(&mut anchors);
        let closing = Closing {
            want_new,
            allow_new: true,
            strict,
        };
        for _ in 0..TRIES {
            for &anchor in &anchors {
                if let Some(found) = self.draw_from(anchor, target, &closing, params, rng) {
                    self.commit(found);
                    return true;
                }
            }
        }
        let starts: Vec<usize> = self.free_neighbours(target).collect();
        if starts.is_empty() {
            return false;
        }
        let closing = Closing {
            want_new: false,
            allow_new: false,
            strict,
        };
        for _ in 0..TRIES {
            let first = self.pick_tight(&starts, &[target], rng);
            if let Some(found) = self.draw_from(target, first, &closing, params, rng) {
                self.add_node(target);
                self.commit(found);
                return true;
            }
        }
        false
    }

    /// A growth step from a random node with free neighbours, as the article grows.
    fn grow_anywhere(&mut self, params: &HashiParams, strict: bool, rng: &mut LevelRng) -> bool {
        let mut anchors: Vec<usize> = (0..self.spot.len())
            .filter(|&c| self.spot[c] == Spot::Node && self.free_neighbours(c).next().is_some())
            .collect();
        rng.shuffle(&mut anchors);
        let closing = Closing {
            want_new: self.wants_new_node(params, rng),
            allow_new: true,
            strict,
        };
        for anchor in anchors {
            let starts: Vec<usize> = self.free_neighbours(anchor).collect();
            let first = self.pick_tight(&starts, &[], rng);
            if let Some(found) = self.draw_from(anchor, first, &closing, params, rng) {
                self.commit(found);
                return true;
            }
        }
        false
    }

    /// Whether the next link should prefer to end on a new node.
    fn wants_new_node(&self, params: &HashiParams, rng: &mut LevelRng) -> bool {
        self.nodes < self.node_budget && !rng.chance(params.join_permille, 1000)
    }

    fn commit(&mut self, (link, new_node): (Vec<usize>, bool)) {
        if new_node {
            self.add_node(*link.last().expect("a link has ends"));
        }
        self.add_link(link);
    }

    /// A random walk from `anchor` through free cells starting at `first`, closed at the
    /// longest prefix whose last cell touches a node other than `anchor` (or, when
    /// allowed, a free cell for a new node). Returns the link and whether its last node
    /// is new.
    fn draw_from(
        &self,
        anchor: usize,
        first: usize,
        closing: &Closing,
        params: &HashiParams,
        rng: &mut LevelRng,
    ) -> Option<(Vec<usize>, bool)> {
        let mut walk = vec![first];
        let length = rng.range(1, params.max_link) as usize;
        while walk.len() < length {
            let last = *walk.last().expect("walk is not empty");
            let onward: Vec<usize> = self
                .free_neighbours(last)
                .filter(|&c| c != anchor && !walk.contains(&c))
                .collect();
            if onward.is_empty() {
                break;
            }
            let mut taken = walk.clone();
            taken.push(anchor);
            walk.push(self.pick_tight(&onward, &taken, rng));
        }
        for len in (1..=walk.len()).rev() {
            let prefix = &walk[..len];
            let end = prefix[len - 1];
            let mut nodes: Vec<usize> = self
                .shape
                .neighbours(end)
                .filter(|&nb| self.spot[nb] == Spot::Node && nb != anchor)
                .collect();
            rng.shuffle(&mut nodes);
            let mut spots: Vec<usize> = if closing.allow_new {
                self.free_neighbours(end)
                    .filter(|&c| c != anchor && !prefix.contains(&c))
                    .collect()
            } else {
                Vec::new()
            };
            let mut tight_spots = Vec::with_capacity(spots.len());
            while !spots.is_empty() {
                let pick = self.pick_tight(&spots, prefix, rng);
                spots.retain(|&c| c != pick);
                tight_spots.push(pick);
            }
            let new_ends = tight_spots.iter().map(|&c| (c, true));
            let old_ends = nodes.iter().map(|&c| (c, false));
            let options: Vec<(usize, bool)> = if closing.want_new || nodes.is_empty() {
                new_ends.chain(old_ends).collect()
            } else {
                old_ends.chain(new_ends).collect()
            };
            for (b, new_node) in options {
                let mut link = Vec::with_capacity(len + 2);
                link.push(anchor);
                link.extend_from_slice(prefix);
                link.push(b);
                if !closing.strict || !self.creates_switch(&link) {
                    return Some((link, new_node));
                }
            }
        }
        None
    }

    /// Whether drawing `link` (its last node possibly new) would complete a switch: a 2x2
    /// square whose parallel pair of steps could turn 90 degrees with every degree kept.
    /// A square with all four corners drawn is final: drawn cells have both their steps.
    fn creates_switch(&self, link: &[usize]) -> bool {
        let mut steps = self.steps.clone();
        solver::add_steps(&self.shape, &mut steps, link);
        let drawn = |c: usize| self.spot[c] != Spot::Free || link.contains(&c);
        let node =
            |c: usize| self.spot[c] == Spot::Node || c == link[0] || c == link[link.len() - 1];
        let n = self.shape.n;
        link.iter().any(|&v| {
            let (x, y) = self.shape.xy(v);
            let xs = x.saturating_sub(1)..=x.min(n - 2);
            xs.flat_map(|sx| (y.saturating_sub(1)..=y.min(n - 2)).map(move |sy| (sx, sy)))
                .any(|(sx, sy)| {
                    let corners = square(&self.shape, sx, sy);
                    corners.iter().all(|&c| drawn(c)) && is_switch(&steps, corners, node)
                })
        })
    }

    /// Where (link index, position) `cell` sits on a link, if it is a link cell.
    fn position(&self, cell: usize) -> Option<(usize, usize)> {
        self.links.iter().enumerate().find_map(|(i, link)| {
            link[1..link.len() - 1]
                .iter()
                .position(|&c| c == cell)
                .map(|p| (i, p + 1))
        })
    }

    /// Whether `cell` can become a node splitting its link in two (a cell on both sides).
    fn splittable(&self, cell: usize) -> bool {
        self.position(cell)
            .is_some_and(|(i, p)| p >= 2 && p + 2 < self.links[i].len())
    }

    /// Turns link cell `cell` into a node with two links, one to each old end.
    fn split(&mut self, cell: usize) {
        let (i, p) = self.position(cell).expect("a link cell");
        let tail = self.links[i].split_off(p);
        self.links[i].push(cell);
        self.links.push(tail);
        self.spot[cell] = Spot::Node;
        self.nodes += 1;
    }

    /// The node at the end of link `i` next to its cell at position `p`, if `p` is an end
    /// position.
    fn end_node(&self, i: usize, p: usize) -> Option<usize> {
        let link = &self.links[i];
        if p == 1 {
            Some(link[0])
        } else if p == link.len() - 2 {
            Some(link[link.len() - 1])
        } else {
            None
        }
    }

    fn links_at(&self, node: usize) -> usize {
        self.links
            .iter()
            .map(|l| usize::from(l[0] == node) + usize::from(l[l.len() - 1] == node))
            .sum()
    }

    /// Whether end cell `cell` can become a node with one link (the rest of its link):
    /// the link keeps a cell, and the node it leaves keeps a link and the network stays
    /// in one piece.
    fn detachable(&self, cell: usize) -> bool {
        let Some((i, p)) = self.position(cell) else {
            return false;
        };
        let Some(old) = self.end_node(i, p) else {
            return false;
        };
        self.links[i].len() >= 4
            && self.links_at(old) >= 2
            && self.connected_with(i, old, cell, Some(cell))
    }

    /// Whether the nodes stay one network when link `i` has its end `old` replaced by
    /// `new` (and `extra`, if any, becomes a node too).
    fn connected_with(&self, i: usize, old: usize, new: usize, extra: Option<usize>) -> bool {
        let mut parent: Vec<usize> = (0..self.spot.len()).collect();
        for (j, link) in self.links.iter().enumerate() {
            let (mut a, mut b) = (link[0], link[link.len() - 1]);
            if j == i {
                if a == old {
                    a = new;
                } else {
                    b = new;
                }
            }
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            parent[ra] = rb;
        }
        let mut nodes =
            (0..self.spot.len()).filter(|&c| self.spot[c] == Spot::Node || Some(c) == extra);
        let first = nodes.next().map(|c| find(&mut parent, c));
        nodes.all(|c| Some(find(&mut parent, c)) == first)
    }

    /// Turns end cell `cell` into a node holding the rest of its link.
    fn detach(&mut self, cell: usize) {
        let (i, p) = self.position(cell).expect("a link cell");
        let link = &mut self.links[i];
        if p == 1 {
            link.remove(0);
        } else {
            link.pop();
        }
        self.spot[cell] = Spot::Node;
        self.nodes += 1;
    }

    /// Makes a node at link cell `cell` (splitting or detaching its link); false when
    /// neither fits.
    fn make_node(&mut self, cell: usize) -> bool {
        if self.splittable(cell) {
            self.split(cell);
        } else if self.detachable(cell) {
            self.detach(cell);
            self.steps = solver::steps_of(&self.shape, &self.links);
        } else {
            return false;
        }
        true
    }

    /// Growth is stuck with free cells left: covers or opens a pocket with a splice or a
    /// take-over (see [`Sketch::splices`], [`Sketch::can_take_over`]) or, failing that,
    /// by making a link cell next to a free cell a node (a new anchor for growth). With
    /// `clean`, only repairs that complete no switch (a new node never does). False
    /// when nothing fits.
    fn repair(&mut self, clean: bool, rng: &mut LevelRng) -> bool {
        let mut free: Vec<usize> = (0..self.spot.len())
            .filter(|&c| self.spot[c] == Spot::Free)
            .collect();
        rng.shuffle(&mut free);
        let mut repairs: Vec<Repair> = Vec::new();
        for &cell in &free {
            repairs.extend(self.splices(cell).into_iter().map(Repair::Splice));
            for end in self.shape.neighbours(cell) {
                if self.can_take_over(cell, end) {
                    repairs.push(Repair::TakeOver(cell, end));
                }
            }
        }
        rng.shuffle(&mut repairs);
        let switches = self.final_switches();
        for &repair in &repairs {
            let mut trial = self.clone();
            trial.apply(repair);
            if !clean || trial.final_switches() <= switches {
                *self = trial;
                return true;
            }
        }
        for cell in free {
            let options: Vec<usize> = self
                .shape
                .neighbours(cell)
                .filter(|&nb| self.splittable(nb) || self.detachable(nb))
                .collect();
            if let Some(&c) = rng.pick(&options) {
                return self.make_node(c);
            }
        }
        false
    }

    /// Removes a link next to a free cell (its cells become free again, and so does an
    /// end node left with no link), keeping the rest of the network in one piece.
    fn rip_up(&mut self, rng: &mut LevelRng) -> bool {
        let mut free: Vec<usize> = (0..self.spot.len())
            .filter(|&c| self.spot[c] == Spot::Free)
            .collect();
        rng.shuffle(&mut free);
        for cell in free {
            let mut near: Vec<usize> = self
                .shape
                .neighbours(cell)
                .filter_map(|nb| self.position(nb).map(|(i, _)| i))
                .collect();
            near.sort_unstable();
            near.dedup();
            rng.shuffle(&mut near);
            if let Some(&i) = near.iter().find(|&&i| self.removable(i)) {
                self.remove_link(i);
                return true;
            }
        }
        false
    }

    /// Whether removing link `i` (and any end node it leaves with no link) keeps the
    /// remaining nodes in one network.
    fn removable(&self, i: usize) -> bool {
        let mut parent: Vec<usize> = (0..self.spot.len()).collect();
        let mut linked = vec![false; self.spot.len()];
        for (_, link) in self.links.iter().enumerate().filter(|&(j, _)| j != i) {
            let (a, b) = (link[0], link[link.len() - 1]);
            linked[a] = true;
            linked[b] = true;
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            parent[ra] = rb;
        }
        let mut nodes = (0..self.spot.len()).filter(|&c| self.spot[c] == Spot::Node && linked[c]);
        let Some(first) = nodes.next() else {
            return false;
        };
        let root = find(&mut parent, first);
        nodes.all(|c| find(&mut parent, c) == root)
    }

    fn remove_link(&mut self, i: usize) {
        let link = self.links.swap_remove(i);
        for &cell in &link[1..link.len() - 1] {
            self.spot[cell] = Spot::Free;
            self.free += 1;
        }
        for end in [link[0], link[link.len() - 1]] {
            if self.links_at(end) == 0 {
                self.spot[end] = Spot::Free;
                self.free += 1;
                self.nodes -= 1;
            }
        }
        self.steps = solver::steps_of(&self.shape, &self.links);
    }

    /// Switches among the squares whose four corners are drawn (those are final).
    fn final_switches(&self) -> usize {
        let n = self.shape.n;
        let node = |c: usize| self.spot[c] == Spot::Node;
        (0..n - 1)
            .flat_map(|y| (0..n - 1).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let corners = square(&self.shape, x, y);
                corners.iter().all(|&c| self.spot[c] != Spot::Free)
                    && is_switch(&self.steps, corners, node)
            })
            .count()
    }

    fn apply(&mut self, repair: Repair) {
        match repair {
            Repair::Splice(splice) => self.splice(splice),
            Repair::TakeOver(cell, end) => self.take_over(cell, end),
        }
    }

    /// The ways to cover free cell `hole` by cutting a link through a node: where a link
    /// steps `u -> w` with `hole` next to `u` and a node `P` next to both `hole` and `w`
    /// (the four make a square), the link becomes `..., u, hole, P` and `P, w, ...`. `P`
    /// gains two link ends, no node loses one, and the network stays whole.
    fn splices(&self, hole: usize) -> Vec<Splice> {
        let mut options = Vec::new();
        for p in self.shape.neighbours(hole) {
            if self.spot[p] != Spot::Node || self.links_at(p) > 2 {
                continue;
            }
            for (i, link) in self.links.iter().enumerate() {
                let (a, b) = (link[0], link[link.len() - 1]);
                for k in 1..link.len() - 2 {
                    let (u, w) = (link[k], link[k + 1]);
                    let fits = |u: usize, w: usize| {
                        self.shape.adjacent(hole, u) && self.shape.adjacent(p, w)
                    };
                    if a != p && b != p && (fits(u, w) || fits(w, u)) {
                        options.push(Splice {
                            hole,
                            link: i,
                            at: k,
                            node: p,
                        });
                    }
                }
            }
        }
        options
    }

    fn splice(
        &mut self,
        Splice {
            hole,
            link,
            at,
            node,
        }: Splice,
    ) {
        let mut head = std::mem::take(&mut self.links[link]);
        let mut tail = head.split_off(at + 1);
        if self.shape.adjacent(hole, head[at]) {
            head.extend([hole, node]);
            tail.insert(0, node);
        } else {
            head.push(node);
            tail.splice(0..0, [node, hole]);
        }
        self.links[link] = head;
        self.links.push(tail);
        self.spot[hole] = Spot::Link;
        self.free -= 1;
        self.steps = solver::steps_of(&self.shape, &self.links);
    }

    /// Whether free cell `cell` can become a node that takes over the end of `end`'s
    /// link: `end` is the end cell of a link whose node there keeps another link, and
    /// the network stays whole.
    fn can_take_over(&self, cell: usize, end: usize) -> bool {
        let Some((i, p)) = self.position(end) else {
            return false;
        };
        let Some(old) = self.end_node(i, p) else {
            return false;
        };
        self.links_at(old) >= 2 && self.connected_with(i, old, cell, Some(cell))
    }

    /// Makes free cell `cell` a node that takes over the end of `end`'s link (checked by
    /// [`Sketch::can_take_over`]).
    fn take_over(&mut self, cell: usize, end: usize) {
        let (i, p) = self.position(end).expect("a link cell");
        let link = &mut self.links[i];
        if p == 1 {
            link[0] = cell;
        } else {
            let last = link.len() - 1;
            link[last] = cell;
        }
        self.spot[cell] = Spot::Node;
        self.free -= 1;
        self.nodes += 1;
        self.steps = solver::steps_of(&self.shape, &self.links);
    }

    fn board(&self) -> Board {
        let mut number = vec![0u8; self.spot.len()];
        for link in &self.links {
            number[link[0]] += 1;
            number[link[link.len() - 1]] += 1;
        }
        Board {
            n: self.shape.n,
            number,
        }
    }
}

/// Union-find root with path halving.
fn find(parent: &mut [usize], mut v: usize) -> usize {
    while parent[v] != v {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    v
}

/// The corners of the 2x2 square with top-left (x, y): top-left, top-right, bottom-left,
/// bottom-right.
fn square(shape: &Board, x: usize, y: usize) -> [usize; 4] {
    [
        shape.cell(x, y),
        shape.cell(x + 1, y),
        shape.cell(x, y + 1),
        shape.cell(x + 1, y + 1),
    ]
}

/// Whether a square is a switch: one pair of parallel sides on, the other pair off but
/// real edges (not between two nodes), so that turning the pair keeps every degree.
fn is_switch(steps: &[u8], [a, b, c, d]: [usize; 4], node: impl Fn(usize) -> bool) -> bool {
    let on = |v: usize, dir: Dir| steps[v] & (1 << dir.index()) != 0;
    let edge = |u: usize, v: usize| !(node(u) && node(v));
    let (ab, cd, ac, bd) = (on(a, Dir::R), on(c, Dir::R), on(a, Dir::D), on(b, Dir::D));
    let turn_down = ab && cd && !ac && !bd && edge(a, c) && edge(b, d);
    let turn_across = ac && bd && !ab && !cd && edge(a, b) && edge(c, d);
    turn_down || turn_across
}

/// Grows a fully covered board. Each step, in order of preference: a link through the
/// most endangered free cell, or from any node, that completes no switch; a repair
/// that completes none; ripping up a link next to a stranded cell so that growth can
/// draw the area again (a bounded number of times); any repair; any link.
fn grow(params: &HashiParams, rng: &mut LevelRng) -> Result<Sketch, Rejection> {
    let n = params.size as usize;
    let cells = (n * n) as u32;
    let (lo, hi) = params.free_permille;
    let free_target = rng.range((lo * cells).div_ceil(1000), hi * cells / 1000) as usize;
    let mut sketch = Sketch::new(n);
    sketch.node_budget = n * n - free_target;
    sketch.add_node(rng.index(n * n));
    fill(&mut sketch, params, rng)?;
    Ok(sketch)
}

/// Grows links until every cell is drawn (see [`grow`]).
fn fill(sketch: &mut Sketch, params: &HashiParams, rng: &mut LevelRng) -> Result<(), Rejection> {
    let n = params.size as usize;
    let (mut steps, mut rip_ups) = (0, 0);
    while sketch.free > 0 {
        steps += 1;
        if steps > 8 * n * n {
            return Err(Rejection::Candidate("growth did not finish"));
        }
        let grown = sketch.grow_link(params, true, rng)
            || sketch.grow_anywhere(params, true, rng)
            || sketch.repair(true, rng)
            || (rip_ups < params.rip_ups && {
                rip_ups += 1;
                sketch.rip_up(rng)
            })
            || sketch.repair(false, rng)
            || sketch.grow_link(params, false, rng)
            || sketch.grow_anywhere(params, false, rng);
        if !grown {
            return Err(Rejection::Candidate("stranded cell"));
        }
    }
    Ok(())
}

/// A grown board of side `size` before any uniqueness edit (for tests), if growth
/// finished.
#[cfg(test)]
pub(super) fn grown_board(size: u32, rng: &mut LevelRng) -> Option<Board> {
    let mut params = tier(Difficulty::Easy).params;
    params.size = size;
    grow(&params, rng).ok().map(|sketch| sketch.board())
}

/// One candidate: a grown board, edited until the solver proves it unique.
pub fn generate(
    params: &HashiParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<HashiLevel, Rejection> {
    // Searches here are far below the 4096 states at which `Limits::tick` looks at the
    // clock, so each candidate asks once.
    if limits.stop.requested() {
        return Err(Rejection::Stopped);
    }
    let mut sketch = grow(params, rng)?;
    for edit in 0..=params.max_edits {
        let board = sketch.board();
        let intended = solver::steps_of(&board, &sketch.links);
        let search =
            solver::solve_near(&board, SOLUTION_CAP, 2, Some(&intended), limits).map_err(|e| {
                match e {
                    Exhausted::Stopped => Rejection::Stopped,
                    Exhausted::States(_) => Rejection::Candidate("state budget"),
                }
            })?;
        if search.count == 1 {
            let (least, most) = params.technique;
            if !(least..=most).contains(&solver::technique(&board)) {
                return Err(Rejection::Candidate("reasoning outside the tier's range"));
            }
            let n = board.n;
            return Ok(HashiLevel {
                width: n,
                height: n,
                grid: board.to_grid(),
            });
        }
        if edit == params.max_edits {
            break;
        }
        let Some(other) = search.found.iter().find(|s| **s != intended) else {
            return Err(Rejection::Candidate("intended drawing not found"));
        };
        match divergence(&sketch, &intended, other, rng) {
            Some(cell) => {
                sketch.make_node(cell);
            }
            None => redraw(&mut sketch, &intended, other, params, rng)?,
        }
    }
    Err(Rejection::Candidate("ambiguous after edits"))
}

/// Rips up the links through the cells where `other` differs from the intended drawing
/// (those whose removal keeps the network whole) and grows the area again.
fn redraw(
    sketch: &mut Sketch,
    intended: &Steps,
    other: &Steps,
    params: &HashiParams,
    rng: &mut LevelRng,
) -> Result<(), Rejection> {
    let mut ripped = false;
    for cell in (0..intended.len()).filter(|&c| intended[c] != other[c]) {
        if let Some((i, _)) = sketch.position(cell)
            && sketch.removable(i)
        {
            sketch.remove_link(i);
            ripped = true;
        }
    }
    if !ripped {
        return Err(Rejection::Candidate("ambiguous, no edit"));
    }
    fill(sketch, params, rng)
}

/// The cell to make a node where `other` diverges from the intended drawing. First
/// choice: a cell from which `other` steps into a node that the intended drawing does
/// not step into. Once the cell is a node too, the two are neighbouring nodes, which no
/// step ever joins, so every drawing with that step is gone, `other` among them, while
/// the intended drawing only has its link split or shortened there. (A cell made a
/// node where `other` merely passes through would often let `other` split there too.)
/// Otherwise any cell where the drawings differ.
fn divergence(
    sketch: &Sketch,
    intended: &Steps,
    other: &Steps,
    rng: &mut LevelRng,
) -> Option<usize> {
    let shape = &sketch.shape;
    let steps_into_node = |c: usize| {
        Dir::ALL.into_iter().any(|d| {
            other[c] & !intended[c] & (1 << d.index()) != 0
                && shape
                    .neighbour(c, d)
                    .is_some_and(|nb| sketch.spot[nb] == Spot::Node)
        })
    };
    let can_be_node = |c: usize| sketch.splittable(c) || sketch.detachable(c);
    let cells = (0..intended.len()).filter(|&c| sketch.spot[c] == Spot::Link);
    let killers: Vec<usize> = cells
        .clone()
        .filter(|&c| steps_into_node(c) && can_be_node(c))
        .collect();
    if let Some(&c) = rng.pick(&killers) {
        return Some(c);
    }
    let options: Vec<usize> = cells
        .filter(|&c| intended[c] != other[c] && can_be_node(c))
        .collect();
    rng.pick(&options).copied()
}
