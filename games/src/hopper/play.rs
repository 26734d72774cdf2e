//! Hopper played one hop at a time, on the compiled board of `rules.rs`.

use crate::core::{Dir, moves_to_string};
use crate::play::Play;

use super::HopperLevel;
use super::rules::{Board, Step};

/// A hopper level being played: the compiled board.
pub struct HopperPlay {
    board: Board,
}

/// Where a sequence stands: hopping (the packed state of `rules.rs`: cell, stars, dirt
/// gone), or landed on the goal with every star.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hopped {
    At(u128),
    Won,
}

impl Play for HopperPlay {
    type Level = HopperLevel;
    type Moves = String;
    type Position = Hopped;
    type Move = Dir;

    fn start(level: &HopperLevel) -> (HopperPlay, Hopped) {
        let board = Board::compile(level);
        let start = Hopped::At(board.start_state());
        (HopperPlay { board }, start)
    }

    /// Every hop but one that lands back where it started with nothing changed (an
    /// arrow can bring the hopper home); none once won.
    fn moves(&self, at: &Hopped) -> Vec<Dir> {
        let Hopped::At(state) = *at else {
            return Vec::new();
        };
        Dir::ALL
            .into_iter()
            .filter(|&d| self.board.step(state, d) != Step::To(state))
            .collect()
    }

    /// A fall, an arrow loop, or the goal with stars missing loses.
    fn apply(&self, at: &Hopped, step: &Dir) -> Option<Hopped> {
        let Hopped::At(state) = *at else {
            return None;
        };
        match self.board.step(state, *step) {
            Step::To(next) => Some(Hopped::At(next)),
            Step::Won => Some(Hopped::Won),
            Step::GoalEarly(_) | Step::Fell => None,
        }
    }

    fn won(&self, at: &Hopped) -> bool {
        *at == Hopped::Won
    }

    fn record(&self, line: &[Dir]) -> String {
        moves_to_string(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hopper::tests::level;

    #[test]
    fn the_star_on_a_grass_spit_is_fetched_and_brought_back() {
        // From S: up is the goal without the star, down and left fall off the grid.
        let lv = level(&["G~~", "S.."], &[[2, 1]]);
        let (play, start) = HopperPlay::start(&lv);
        assert_eq!(play.moves(&start), Dir::ALL.to_vec());
        for lost in [Dir::U, Dir::D, Dir::L] {
            assert_eq!(play.apply(&start, &lost), None, "{lost:?}");
        }
        let mut at = start;
        for d in [Dir::R, Dir::R, Dir::L, Dir::L, Dir::U] {
            assert!(!play.won(&at));
            at = play.apply(&at, &d).unwrap();
        }
        assert!(play.won(&at));
        assert!(play.moves(&at).is_empty());
        assert_eq!(play.record(&[Dir::R, Dir::U]), "RU");
    }

    #[test]
    fn a_hop_an_arrow_brings_straight_back_to_grass_is_no_move() {
        // Up lands on the arrow `v`, which slides the hopper back onto S: nothing changed.
        let (play, start) = HopperPlay::start(&level(&["G.", "v.", "S."], &[]));
        assert!(!play.moves(&start).contains(&Dir::U));
        assert!(play.moves(&start).contains(&Dir::R));
    }
}
