//! Hashi played one link at a time, on the drawing of `rules.rs`.

use super::HashiLevel;
use super::rules::{Board, Drawn, LinkPoints, Verdict};

/// The longest link a simulated player considers, in empty cells. Links of any length
/// are legal; a person scanning the board for links sees the short ones, and the count
/// of longer ones grows too fast for a bounded lookahead.
pub const BOT_LINK_CELLS: usize = 4;

/// A hashi level being played.
pub struct HashiPlay {
    board: Board,
}

/// Where a drawing stands: its links, and whether they solved the level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sketch {
    drawn: Drawn,
    won: bool,
}

impl crate::play::Play for HashiPlay {
    type Level = HashiLevel;
    type Moves = Vec<LinkPoints>;
    type Position = Sketch;
    /// A link as its cells, the nodes at both ends.
    type Move = Vec<usize>;

    fn start(level: &HashiLevel) -> (HashiPlay, Sketch) {
        let board = Board::parse(level);
        let start = Sketch {
            drawn: Drawn::new(&board),
            won: false,
        };
        (HashiPlay { board }, start)
    }

    /// The links a player weighs: every link of at most [`BOT_LINK_CELLS`] free cells
    /// between two nodes that still take a link, each once (from its lower node). What
    /// the rules show at a glance narrows them: when a free cell or a node short of
    /// links is served by too few of them, the position cannot be won by them (no
    /// moves); when a free cell is served by exactly one, or a node by exactly as many
    /// as it still takes, those links must be drawn (the first is the only move). None
    /// once won.
    fn moves(&self, at: &Sketch) -> Vec<Vec<usize>> {
        if at.won {
            return Vec::new();
        }
        let mut links = Vec::new();
        for node in (0..self.board.cells()).filter(|&c| at.drawn.spare(&self.board, c) > 0) {
            self.extend(&at.drawn, &mut vec![node], &mut links);
        }
        match self.glance(&at.drawn, &links) {
            Glance::Open => links,
            Glance::Stuck => Vec::new(),
            Glance::Forced(i) => vec![links.swap_remove(i)],
        }
    }

    /// A link over a covered cell or onto a full node loses, and so does a finished
    /// drawing that breaks a rule.
    fn apply(&self, at: &Sketch, link: &Vec<usize>) -> Option<Sketch> {
        let mut drawn = at.drawn.clone();
        match drawn.add(&self.board, link) {
            Verdict::Open => Some(Sketch { drawn, won: false }),
            Verdict::Won => Some(Sketch { drawn, won: true }),
            Verdict::Lost(_) => None,
        }
    }

    fn won(&self, at: &Sketch) -> bool {
        at.won
    }

    fn record(&self, line: &[Vec<usize>]) -> Vec<LinkPoints> {
        line.iter()
            .map(|link| {
                link.iter()
                    .map(|&cell| {
                        let (x, y) = self.board.xy(cell);
                        [x as i64, y as i64]
                    })
                    .collect()
            })
            .collect()
    }
}

impl HashiPlay {
    /// Grows `path` (a node, then free cells) by one cell every way it can, recording
    /// each link it can close onto a higher node that still takes one.
    fn extend(&self, drawn: &Drawn, path: &mut Vec<usize>, links: &mut Vec<Vec<usize>>) {
        let last = *path.last().expect("a path starts at its node");
        for next in self.board.neighbours(last) {
            if self.board.is_node(next) {
                let closes = path.len() > 1 && next > path[0];
                if closes && drawn.spare(&self.board, next) > 0 {
                    links.push([path.as_slice(), &[next]].concat());
                }
            } else if !drawn.is_covered(next)
                && !path.contains(&next)
                && path.len() <= BOT_LINK_CELLS
            {
                path.push(next);
                self.extend(drawn, path, links);
                path.pop();
            }
        }
    }

    /// What the links in reach say at once: per cell, how many links would serve it
    /// (run through a free cell, end at a node that still takes links), and the first.
    fn glance(&self, drawn: &Drawn, links: &[Vec<usize>]) -> Glance {
        let cells = self.board.cells();
        let (mut count, mut first) = (vec![0usize; cells], vec![0usize; cells]);
        for (i, link) in links.iter().enumerate() {
            for &cell in link {
                if count[cell] == 0 {
                    first[cell] = i;
                }
                count[cell] += 1;
            }
        }
        let mut forced = None;
        for cell in 0..cells {
            let needs = if self.board.is_node(cell) {
                usize::from(drawn.spare(&self.board, cell))
            } else {
                usize::from(!drawn.is_covered(cell))
            };
            if count[cell] < needs {
                return Glance::Stuck;
            }
            if needs > 0 && count[cell] == needs {
                forced = forced.or(Some(first[cell]));
            }
        }
        forced.map_or(Glance::Open, Glance::Forced)
    }
}

/// What a position's links in reach show at a glance.
enum Glance {
    /// Nothing forced.
    Open,
    /// A free cell or a node short of links that too few links can serve.
    Stuck,
    /// A link that must be drawn: the only one serving a free cell, or one of exactly as
    /// many as a node still takes.
    Forced(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Puzzle, Status};
    use crate::hashi::Hashi;
    use crate::hashi::rules::tests::{RING, RING_LINKS, cells_of, level};
    use crate::play::Play;

    #[test]
    fn the_ring_drawn_link_by_link_wins_and_replays_as_a_win() {
        let lv = level(&RING);
        let (play, mut at) = HashiPlay::start(&lv);
        let links: Vec<Vec<usize>> = RING_LINKS
            .iter()
            .map(|points| cells_of(&play.board, points))
            .collect();
        for link in &links {
            assert!(!play.won(&at));
            let offered = play.moves(&at);
            let reversed: Vec<usize> = link.iter().rev().copied().collect();
            assert!(offered.contains(link) || offered.contains(&reversed));
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
        let detour = cells_of(
            &play.board,
            &[(0, 0), (0, 1), (1, 1), (2, 1), (2, 0), (3, 0)],
        );
        let after = play.apply(&start, &detour).unwrap();
        assert!(!play.won(&after));
        assert!(play.moves(&after).is_empty());
    }

    #[test]
    fn a_link_over_a_covered_cell_loses() {
        let lv = level(&RING);
        let (play, start) = HashiPlay::start(&lv);
        let top = cells_of(&play.board, RING_LINKS[0]);
        let after = play.apply(&start, &top).unwrap();
        let across = cells_of(&play.board, &[(0, 0), (1, 0), (1, 1), (1, 2)]);
        assert_eq!(play.apply(&after, &across), None);
    }
}
