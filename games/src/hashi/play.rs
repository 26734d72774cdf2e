//! Hashi played one link at a time, on the drawing of `rules.rs`.

use std::hash::{Hash, Hasher};

use super::HashiLevel;
use super::rules::{Board, Drawn, LinkPoints, MAX_CELLS, Verdict};
use super::solver::{self, Deduced};

/// The longest link a simulated player considers, in empty cells. Links of any length
/// are legal; a person scanning the board for links sees the short ones, and the count
/// of longer ones grows too fast for a bounded lookahead.
pub const BOT_LINK_CELLS: usize = 4;

/// A hashi level being played.
pub struct HashiPlay {
    board: Board,
    /// Every link a player considers on the empty board: at most [`BOT_LINK_CELLS`] empty
    /// cells between two nodes, each once (from its lower node), in a fixed order. A move
    /// is an index into it: the links open in a position are a subset of this table, kept
    /// with the position, so none is searched for again move after move.
    links: Vec<Vec<usize>>,
    /// Per link of the table, its steps, found once.
    link_steps: Vec<Vec<Step>>,
    /// Per cell, the links of the table through it (ends included), as a bit set of
    /// `words` words: what a link that covers the cell or fills the node closes.
    through: Vec<u64>,
    words: usize,
    /// The board's nodes.
    nodes: Vec<usize>,
}

/// Where a drawing stands: its links, and whether they solved the level.
#[derive(Clone, Debug)]
pub struct Sketch {
    drawn: Drawn,
    /// The same links as steps, for deduction (per cell of the largest board, so that a
    /// copy allocates nothing).
    steps: [u8; MAX_CELLS],
    won: bool,
    /// What the drawing leaves open, kept up to date link by link (it follows from
    /// `drawn`, so equality leaves it out): the table's links still drawable (every cell
    /// free, both nodes still taking a link) as a bit set, how many of them serve each
    /// cell, and the empty cells on no link.
    open: Vec<u64>,
    served: [u16; MAX_CELLS],
    uncovered: u128,
}

impl PartialEq for Sketch {
    fn eq(&self, other: &Sketch) -> bool {
        (&self.drawn, &self.steps, self.won) == (&other.drawn, &other.steps, other.won)
    }
}

impl Eq for Sketch {}

/// Hashes the steps alone: equal sketches have equal steps, and a third of the bytes
/// hash three times faster (a bot hashes every position it looks at).
impl Hash for Sketch {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.steps.hash(state);
    }
}

impl crate::play::Play for HashiPlay {
    type Level = HashiLevel;
    type Moves = Vec<LinkPoints>;
    type Position = Sketch;
    /// A link, as its index in [`HashiPlay::links`].
    type Move = usize;

    fn start(level: &HashiLevel) -> (HashiPlay, Sketch) {
        let board = Board::parse(level);
        let mut links = Vec::new();
        for node in (0..board.cells()).filter(|&c| board.is_node(c)) {
            extend(&board, &mut vec![node], &mut links);
        }
        let words = links.len().div_ceil(64);
        let mut through = vec![0u64; board.cells() * words];
        let mut served = [0u16; MAX_CELLS];
        for (i, link) in links.iter().enumerate() {
            for &cell in link {
                through[cell * words + i / 64] |= 1 << (i % 64);
                served[cell] += 1;
            }
        }
        let link_steps = links.iter().map(|link| steps_of(&board, link)).collect();
        let nodes: Vec<usize> = (0..board.cells()).filter(|&c| board.is_node(c)).collect();
        let start = Sketch {
            drawn: Drawn::new(&board),
            steps: [0; MAX_CELLS],
            won: false,
            open: (0..words)
                .map(|w| bits_below(links.len().saturating_sub(w * 64)))
                .collect(),
            served,
            uncovered: (0..board.cells())
                .filter(|&c| !board.is_node(c))
                .fold(0u128, |set, c| set | 1 << c),
        };
        let play = HashiPlay {
            board,
            links,
            link_steps,
            through,
            words,
            nodes,
        };
        (play, start)
    }

    /// The links a player weighs: those of the table still drawable (every cell free,
    /// both nodes still taking a link). What the rules show at a glance narrows them:
    /// when a free cell or a node short of links is served by too few of them, the
    /// position cannot be won by them (no moves); when a free cell is served by exactly
    /// one, or a node by exactly as many as it still takes, those links must be drawn
    /// (the first is the only move). None once won.
    fn moves(&self, at: &Sketch) -> Vec<usize> {
        if at.won {
            return Vec::new();
        }
        match self.glance(at) {
            Glance::Open => open_links(&at.open),
            Glance::Stuck => Vec::new(),
            Glance::Forced(cell) => vec![self.first_open_through(at, cell)],
        }
    }

    /// A link over a covered cell or onto a full node loses, and so does a finished
    /// drawing that breaks a rule.
    fn apply(&self, at: &Sketch, &index: &usize) -> Option<Sketch> {
        let link = &self.links[index];
        let mut drawn = at.drawn.clone();
        let won = match drawn.add(&self.board, link) {
            Verdict::Open => false,
            Verdict::Won => true,
            Verdict::Lost(_) => return None,
        };
        let mut steps = at.steps;
        for step in &self.link_steps[index] {
            steps[step.from] |= step.out;
            steps[step.to] |= step.back;
        }
        let mut next = Sketch {
            drawn,
            steps,
            won,
            open: at.open.clone(),
            ..*at
        };
        self.close_after(&mut next, link);
        Some(next)
    }

    /// A player reasons about the steps drawn as the solver propagates, for `insight`
    /// waves: a link the reasoning completes is the one move, a contradiction leaves
    /// none, and otherwise the links over no step it ruled out are weighed. (A completed
    /// link longer than any the player considers is no move of its own: the other links
    /// stay open.)
    fn weighed(&self, at: &Sketch, insight: u32) -> Vec<usize> {
        if at.won {
            return Vec::new();
        }
        let ruled_out = match solver::deduce(&self.board, &at.steps, insight) {
            Deduced::Stuck => return Vec::new(),
            Deduced::Forced(link) => match self.index_of(&link) {
                Some(i) => return vec![i],
                None => vec![0; self.board.cells()],
            },
            Deduced::Open(off) => off,
        };
        let mut moves = self.moves(at);
        moves.retain(|&i| {
            self.link_steps[i]
                .iter()
                .all(|step| ruled_out[step.from] & step.out == 0)
        });
        moves
    }

    fn won(&self, at: &Sketch) -> bool {
        at.won
    }

    fn record(&self, line: &[usize]) -> Vec<LinkPoints> {
        line.iter()
            .map(|&link| {
                self.links[link]
                    .iter()
                    .map(|&cell| {
                        let (x, y) = self.board.xy(cell);
                        [x as i64, y as i64]
                    })
                    .collect()
            })
            .collect()
    }
}

/// Grows `path` (a node, then free cells) by one cell every way it can, recording each
/// link it can close onto a higher node.
fn extend(board: &Board, path: &mut Vec<usize>, links: &mut Vec<Vec<usize>>) {
    let last = *path.last().expect("a path starts at its node");
    for next in board.neighbours(last) {
        if board.is_node(next) {
            if path.len() > 1 && next > path[0] {
                links.push([path.as_slice(), &[next]].concat());
            }
        } else if !path.contains(&next) && path.len() <= BOT_LINK_CELLS {
            path.push(next);
            extend(board, path, links);
            path.pop();
        }
    }
}

impl HashiPlay {
    /// Takes out of `at`'s open links those that `link`, just drawn, closes: the ones
    /// through its empty cells, now covered, and through an end node it filled.
    fn close_after(&self, at: &mut Sketch, link: &[usize]) {
        let (a, b) = (link[0], link[link.len() - 1]);
        let inner = &link[1..link.len() - 1];
        let full_ends = [a, b]
            .into_iter()
            .filter(|&node| at.drawn.spare(&self.board, node) == 0);
        let mut blocked = [0; BOT_LINK_CELLS + 2];
        let mut count = 0;
        for cell in inner.iter().copied().chain(full_ends) {
            blocked[count] = cell;
            count += 1;
        }
        let blocked = &blocked[..count];
        for (w, open) in at.open.iter_mut().enumerate() {
            let mut closed = blocked
                .iter()
                .fold(0, |set, &cell| set | self.through[cell * self.words + w])
                & *open;
            *open &= !closed;
            while closed != 0 {
                let link = w * 64 + closed.trailing_zeros() as usize;
                closed &= closed - 1;
                for &cell in &self.links[link] {
                    at.served[cell] -= 1;
                }
            }
        }
        at.uncovered &= !inner.iter().fold(0u128, |set, &c| set | 1 << c);
    }

    /// The table index of `link`, drawn either way round.
    fn index_of(&self, link: &[usize]) -> Option<usize> {
        self.links
            .iter()
            .position(|l| l == link || l.iter().rev().eq(link.iter()))
    }

    /// What `at`'s open links say at once, from how many of them serve each cell (run
    /// through a free cell, end at a node that still takes links).
    fn glance(&self, at: &Sketch) -> Glance {
        // A free cell needs one link: stuck when none serves it, forcing when one does.
        let mut forcing = 0u128;
        let mut free = at.uncovered;
        while free != 0 {
            let cell = free.trailing_zeros() as usize;
            free &= free - 1;
            match at.served[cell] {
                0 => return Glance::Stuck,
                1 => forcing |= 1 << cell,
                _ => {}
            }
        }
        for &node in &self.nodes {
            let needs = u16::from(at.drawn.spare(&self.board, node));
            let count = at.served[node];
            if count < needs {
                return Glance::Stuck;
            }
            if needs > 0 && count == needs {
                forcing |= 1 << node;
            }
        }
        if forcing == 0 {
            return Glance::Open;
        }
        Glance::Forced(forcing.trailing_zeros() as usize)
    }

    /// The first open link of the table through `cell`.
    fn first_open_through(&self, at: &Sketch, cell: usize) -> usize {
        let through = &self.through[cell * self.words..][..self.words];
        through
            .iter()
            .zip(&at.open)
            .enumerate()
            .find_map(|(w, (&through, &open))| {
                let both = through & open;
                (both != 0).then(|| w * 64 + both.trailing_zeros() as usize)
            })
            .expect("a served cell has an open link")
    }
}

/// A word's lowest `n` bits set (all 64 from `n` = 64 on).
fn bits_below(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The links of a bit set, in the table's order.
fn open_links(open: &[u64]) -> Vec<usize> {
    let mut links = Vec::with_capacity(open.iter().map(|w| w.count_ones() as usize).sum());
    for (w, &word) in open.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            links.push(w * 64 + rest.trailing_zeros() as usize);
            rest &= rest - 1;
        }
    }
    links
}

/// One step of a link, from a cell to the next, as the direction bits it marks on each
/// in [`Steps`](solver::Steps).
struct Step {
    from: usize,
    to: usize,
    out: u8,
    back: u8,
}

/// The steps of `link`, a path of neighbouring cells.
fn steps_of(board: &Board, link: &[usize]) -> Vec<Step> {
    link.windows(2)
        .filter_map(|pair| {
            let dir = solver::step_between(board, pair[0], pair[1])?;
            Some(Step {
                from: pair[0],
                to: pair[1],
                out: 1 << dir.index(),
                back: 1 << dir.opposite().index(),
            })
        })
        .collect()
}

/// What a position's links in reach show at a glance.
enum Glance {
    /// Nothing forced.
    Open,
    /// A free cell or a node short of links that too few links can serve.
    Stuck,
    /// A cell whose links must be drawn: a free cell only one link serves, or a node
    /// served by exactly as many as it still takes (the lowest such cell).
    Forced(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Limits, Puzzle, Status, Stop};
    use crate::hashi::rules::tests::{RING, RING_LINKS, cells_of, level};
    use crate::hashi::{Hashi, generator};
    use crate::play::Play;
    use crate::{Difficulty, LevelRng};

    /// The table index of the link through `points`.
    fn link(play: &HashiPlay, points: &[(usize, usize)]) -> usize {
        play.index_of(&cells_of(&play.board, points))
            .expect("the link is in the table")
    }

    /// What `at` leaves open, found from its drawing alone, as the first version of
    /// `moves` did: the links over no covered cell and no full node, how many serve each
    /// cell, and the empty cells on no link.
    fn open_from_scratch(play: &HashiPlay, at: &Sketch) -> (Vec<usize>, Vec<u16>, u128) {
        let board = &play.board;
        let blocked = |c: usize| {
            if board.is_node(c) {
                at.drawn.spare(board, c) == 0
            } else {
                at.drawn.is_covered(c)
            }
        };
        let open: Vec<usize> = (0..play.links.len())
            .filter(|&i| !play.links[i].iter().any(|&c| blocked(c)))
            .collect();
        let mut served = vec![0u16; board.cells()];
        for &i in &open {
            play.links[i].iter().for_each(|&c| served[c] += 1);
        }
        let uncovered = (0..board.cells())
            .filter(|&c| !board.is_node(c) && !at.drawn.is_covered(c))
            .fold(0u128, |set, c| set | 1 << c);
        (open, served, uncovered)
    }

    #[test]
    fn the_open_links_kept_link_by_link_match_the_drawing() {
        // Random drawable links on generated levels of every tier, checked after each.
        let mut rng = LevelRng::from_u64(42);
        let stop = Stop::never();
        let mut positions = 0;
        for tier in Difficulty::ALL {
            let limits = Limits {
                max_states: Hashi::tier(tier).max_states,
                stop: &stop,
            };
            let params = Hashi::tier(tier).params;
            let level = (0..)
                .find_map(|_| generator::generate(&params, &mut rng, &limits).ok())
                .unwrap();
            let (play, mut at) = HashiPlay::start(&level);
            loop {
                let (open, served, uncovered) = open_from_scratch(&play, &at);
                assert_eq!(open_links(&at.open), open);
                assert_eq!(&at.served[..served.len()], served.as_slice());
                assert_eq!(at.uncovered, uncovered);
                positions += 1;
                let Some(next) = (!open.is_empty())
                    .then(|| play.apply(&at, &open[rng.index(open.len())]))
                    .flatten()
                else {
                    break;
                };
                at = next;
            }
        }
        assert!(positions > 20, "only {positions} positions checked");
    }

    #[test]
    fn the_ring_drawn_link_by_link_wins_and_replays_as_a_win() {
        let lv = level(&RING);
        let (play, mut at) = HashiPlay::start(&lv);
        let links: Vec<usize> = RING_LINKS.iter().map(|p| link(&play, p)).collect();
        for link in &links {
            assert!(!play.won(&at));
            assert!(play.moves(&at).contains(link));
            at = play.apply(&at, link).unwrap();
        }
        assert!(play.won(&at));
        assert!(play.moves(&at).is_empty());
        let replay = Hashi::replay(&lv, &play.record(&links)).unwrap();
        assert_eq!((replay.status, replay.moves_used), (Status::Won, 5));
    }

    #[test]
    fn a_cell_no_link_can_reach_leaves_no_move() {
        // Around (1,0) from (0,0) to (3,0): (1,0) then touches only the node (0,0).
        let lv = level(&RING);
        let (play, start) = HashiPlay::start(&lv);
        let detour = link(&play, &[(0, 0), (0, 1), (1, 1), (2, 1), (2, 0), (3, 0)]);
        let after = play.apply(&start, &detour).unwrap();
        assert!(!play.won(&after));
        assert!(play.moves(&after).is_empty());
        // Deduction sees it in its second wave, once (1,1) is full: (1,0) has one way
        // out and needs two. In the first it only finds the link down the right side.
        assert_eq!(
            play.weighed(&after, 1),
            vec![link(&play, &[(3, 0), (3, 1), (3, 2), (3, 3)])]
        );
        assert!(play.weighed(&after, 2).is_empty());
    }

    #[test]
    fn a_link_over_a_covered_cell_loses() {
        let lv = level(&RING);
        let (play, start) = HashiPlay::start(&lv);
        let top = link(&play, RING_LINKS[0]);
        let after = play.apply(&start, &top).unwrap();
        let across = link(&play, &[(0, 0), (1, 0), (1, 1), (1, 2)]);
        assert_eq!(play.apply(&after, &across), None);
    }

    #[test]
    fn a_link_the_degrees_complete_is_the_only_move_weighed() {
        // With the first four links drawn, (1,3) and (2,3) each have two ways out left:
        // one wave of the degree rule draws both steps of each, closing the last link.
        let lv = level(&RING);
        let (play, mut at) = HashiPlay::start(&lv);
        for points in &RING_LINKS[..4] {
            at = play.apply(&at, &link(&play, points)).unwrap();
        }
        assert_eq!(play.weighed(&at, 1), vec![link(&play, RING_LINKS[4])]);
    }

    #[test]
    fn a_move_over_a_step_ruled_out_is_not_weighed() {
        // After the top link, (1,0) and (2,0) are full: no link may step down from them.
        let lv = level(&RING);
        let (play, start) = HashiPlay::start(&lv);
        let after = play.apply(&start, &link(&play, RING_LINKS[0])).unwrap();
        let weighed = play.weighed(&after, 2);
        assert!(!weighed.is_empty());
        for &i in &weighed {
            assert!(play.moves(&after).contains(&i));
            let cells = &play.links[i];
            assert!(!cells.contains(&play.board.cell(1, 0)));
            assert!(!cells.contains(&play.board.cell(2, 0)));
        }
    }
}
