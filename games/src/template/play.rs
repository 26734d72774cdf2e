//! The template played one step at a time (what a simulated player needs, `crate::play`).

use crate::core::{Dir, moves_to_string};
use crate::play::Play;

use super::{Board, TemplateLevel};

/// A maze being walked; a position is the walker's cell.
pub struct TemplatePlay {
    board: Board,
}

impl Play for TemplatePlay {
    type Level = TemplateLevel;
    type Moves = String;
    type Position = usize;
    type Move = Dir;

    fn start(level: &TemplateLevel) -> (TemplatePlay, usize) {
        let board = Board::new(level);
        let start = board.start;
        (TemplatePlay { board }, start)
    }

    /// Every step onto an open cell (a step into a wall changes nothing); none once won.
    fn moves(&self, at: &usize) -> Vec<Dir> {
        if self.won(at) {
            return Vec::new();
        }
        Dir::ALL
            .into_iter()
            .filter(|&d| self.board.step(*at, d).is_some())
            .collect()
    }

    /// The maze is never lost.
    fn apply(&self, at: &usize, step: &Dir) -> Option<usize> {
        Some(self.board.step(*at, *step).unwrap_or(*at))
    }

    fn won(&self, at: &usize) -> bool {
        *at == self.board.goal
    }

    fn record(&self, line: &[Dir]) -> String {
        moves_to_string(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::tests::level;

    #[test]
    fn a_corridor_offers_the_open_steps_and_is_won_at_the_goal() {
        let (play, start) = TemplatePlay::start(&level(&["#####", "#@.*#", "#####"]));
        assert_eq!(play.moves(&start), vec![Dir::R]);
        let middle = play.apply(&start, &Dir::R).unwrap();
        assert_eq!(play.moves(&middle), vec![Dir::L, Dir::R]);
        let goal = play.apply(&middle, &Dir::R).unwrap();
        assert!(play.won(&goal));
        assert!(play.moves(&goal).is_empty());
        assert_eq!(play.record(&[Dir::R, Dir::R]), "RR");
    }
}
