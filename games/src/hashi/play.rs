//! Hashi played one link at a time, on the drawing of `rules.rs`.

use super::HashiLevel;
use super::rules::{Board, Drawn, LinkPoints, Verdict};
use super::solver::{self, Deduced, Steps};

/// The longest link a simulated player considers, in empty cells. Links of any length
/// are legal; a person scanning the board for links sees the short ones, and the count
/// of longer ones grows too fast for a bounded lookahead.
pub const BOT_LINK_CELLS: usize = 4;

/// A hashi level being played.
pub struct HashiPlay {
    board: Board,
    /// Every link a player considers on the empty board: at most [`BOT_LINK_CELLS`] empty
    /// cells between two nodes, each once (from its lower node), in a fixed order. A move
    /// is an index into it: the links open in a position are a filter of this table, so
    /// none is searched for again move after move.
    links: Vec<Vec<usize>>,
    /// Per link of the table, its cells as a bit set: a link is open when none of them
    /// is blocked (see [`HashiPlay::blocked`]).
    cell_sets: Vec<u128>,
    /// The board's empty cells as a bit set, and its nodes.
    empty_cells: u128,
    nodes: Vec<usize>,
}

/// Where a drawing stands: its links, and whether they solved the level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sketch {
    drawn: Drawn,
    /// The same links as steps, for deduction.
    steps: Steps,
    won: bool,
}

impl crate::play::Play for HashiPlay {
    type Level = HashiLevel;
    type Moves = Vec<LinkPoints>;
    type Position = Sketch;
    /// A link, as its index in [`HashiPlay::links`].
    type Move = usize;

    fn start(level: &HashiLevel) -> (HashiPlay, Sketch) {
        let board = Board::parse(level);
        let start = Sketch {
            drawn: Drawn::new(&board),
            steps: vec![0; board.cells()],
            won: false,
        };
        let mut links = Vec::new();
        for node in (0..board.cells()).filter(|&c| board.is_node(c)) {
            extend(&board, &mut vec![node], &mut links);
        }
        let cell_sets = links
            .iter()
            .map(|link| link.iter().fold(0u128, |set, &c| set | 1 << c))
            .collect();
        let nodes: Vec<usize> = (0..board.cells()).filter(|&c| board.is_node(c)).collect();
        let empty_cells = (0..board.cells())
            .filter(|&c| !board.is_node(c))
            .fold(0u128, |set, c| set | 1 << c);
        (
            HashiPlay {
                board,
                links,
                cell_sets,
                empty_cells,
                nodes,
            },
            start,
        )
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
        let drawn = &at.drawn;
        let blocked = self.blocked(drawn);
        let mut links = Vec::with_capacity(self.links.len());
        links.extend((0..self.links.len()).filter(|&i| self.cell_sets[i] & blocked == 0));
        match self.glance(drawn, blocked, &links) {
            Glance::Open => links,
            Glance::Stuck => Vec::new(),
            Glance::Forced(i) => vec![links.swap_remove(i)],
        }
    }

    /// A link over a covered cell or onto a full node loses, and so does a finished
    /// drawing that breaks a rule.
    fn apply(&self, at: &Sketch, &link: &usize) -> Option<Sketch> {
        let link = &self.links[link];
        let mut drawn = at.drawn.clone();
        let won = match drawn.add(&self.board, link) {
            Verdict::Open => false,
            Verdict::Won => true,
            Verdict::Lost(_) => return None,
        };
        let mut steps = at.steps.clone();
        solver::add_steps(&self.board, &mut steps, link);
        Some(Sketch { drawn, steps, won })
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
            self.links[i].windows(2).all(|pair| {
                solver::step_between(&self.board, pair[0], pair[1])
                    .is_some_and(|d| ruled_out[pair[0]] & (1 << d.index()) == 0)
            })
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
    /// The cells no further link may use: covered empty cells and nodes that take no
    /// more links (a link's own cells are free empty cells and two nodes).
    fn blocked(&self, drawn: &Drawn) -> u128 {
        (0..self.board.cells())
            .filter(|&c| {
                if self.board.is_node(c) {
                    drawn.spare(&self.board, c) == 0
                } else {
                    drawn.is_covered(c)
                }
            })
            .fold(0, |set, c| set | 1 << c)
    }

    /// The table index of `link`, drawn either way round.
    fn index_of(&self, link: &[usize]) -> Option<usize> {
        self.links
            .iter()
            .position(|l| l == link || l.iter().rev().eq(link.iter()))
    }

    /// What the open links (indices into the table) say at once: per cell, how many
    /// links would serve it (run through a free cell, end at a node that still takes
    /// links), and the first.
    fn glance(&self, drawn: &Drawn, blocked: u128, links: &[usize]) -> Glance {
        let [low, mid, high] = self.served(links);
        // A free cell needs one link: stuck when none serves it, forcing when one does.
        let free = self.empty_cells & !blocked;
        let unserved = !(low | mid | high);
        if free & unserved != 0 {
            return Glance::Stuck;
        }
        let mut forcing = free & low & !mid & !high;
        for &node in &self.nodes {
            let needs = drawn.spare(&self.board, node);
            let bit = |plane: u128, b: u32| u8::from(plane >> node & 1 != 0) << b;
            let count = bit(low, 0) | bit(mid, 1) | bit(high, 2);
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
        let cell = forcing.trailing_zeros();
        let first = links
            .iter()
            .position(|&link| self.cell_sets[link] >> cell & 1 != 0)
            .expect("a served cell has a link");
        Glance::Forced(first)
    }

    /// Per cell, how many of `links` run through it, counted in three bit planes (bit
    /// `b` of the count in plane `b`) and held at 7: no cell needs more than 4.
    fn served(&self, links: &[usize]) -> [u128; 3] {
        let mut planes = [0u128; 3];
        for &link in links {
            let mut carry = self.cell_sets[link];
            for plane in &mut planes {
                let next = *plane & carry;
                *plane ^= carry;
                carry = next;
            }
            // Counts that passed 7 wrapped to 0: back to 7.
            if carry != 0 {
                planes.iter_mut().for_each(|plane| *plane |= carry);
            }
        }
        planes
    }
}

/// What a position's links in reach show at a glance.
enum Glance {
    /// Nothing forced.
    Open,
    /// A free cell or a node short of links that too few links can serve.
    Stuck,
    /// A link that must be drawn: the only one serving a free cell, or one of exactly as
    /// many as a node still takes (its place among the open links).
    Forced(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Puzzle, Status};
    use crate::hashi::Hashi;
    use crate::hashi::rules::tests::{RING, RING_LINKS, cells_of, level};
    use crate::play::Play;

    /// The table index of the link through `points`.
    fn link(play: &HashiPlay, points: &[(usize, usize)]) -> usize {
        play.index_of(&cells_of(&play.board, points))
            .expect("the link is in the table")
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
