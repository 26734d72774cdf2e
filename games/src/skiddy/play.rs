//! Skiddy played one move at a time, on the compiled board of `rules.rs`.

use crate::core::{Dir, moves_to_string};
use crate::play::Play;

use super::SkiddyLevel;
use super::rules::{Board, State};

/// A skiddy level being played: the board's fixed part; a position is the movables' state.
pub struct SkiddyPlay {
    board: Board,
}

impl Play for SkiddyPlay {
    type Level = SkiddyLevel;
    type Moves = String;
    type Position = State;
    type Move = Dir;

    fn start(level: &SkiddyLevel) -> (SkiddyPlay, State) {
        let (board, state) = Board::compile(level);
        (SkiddyPlay { board }, state)
    }

    /// Every move that moves something (skiddy has no loss); none once won.
    fn moves(&self, at: &State) -> Vec<Dir> {
        if self.won(at) {
            return Vec::new();
        }
        Dir::ALL
            .into_iter()
            .zip(self.board.tilts(*at))
            .filter(|&(_, next)| next != *at)
            .map(|(d, _)| d)
            .collect()
    }

    fn apply(&self, at: &State, step: &Dir) -> Option<State> {
        Some(self.board.tilt(*at, *step))
    }

    fn won(&self, at: &State) -> bool {
        Board::is_win(*at)
    }

    fn record(&self, line: &[Dir]) -> String {
        moves_to_string(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skiddy::tests::{LEVEL_1_1, level};

    #[test]
    fn level_1_1_is_won_by_left_then_down() {
        // Up moves nothing; left joins the reds; down then takes both out at once.
        let (play, start) = SkiddyPlay::start(&level(&LEVEL_1_1));
        assert_eq!(play.moves(&start), vec![Dir::D, Dir::L, Dir::R]);
        let joined = play.apply(&start, &Dir::L).unwrap();
        assert!(!play.won(&joined));
        let won = play.apply(&joined, &Dir::D).unwrap();
        assert!(play.won(&won));
        assert!(play.moves(&won).is_empty());
        assert_eq!(play.record(&[Dir::L, Dir::D]), "LD");
    }

    #[test]
    fn down_first_clears_one_red_and_the_other_is_still_on_the_board() {
        let (play, start) = SkiddyPlay::start(&level(&LEVEL_1_1));
        let one_out = play.apply(&start, &Dir::D).unwrap();
        assert_eq!(one_out.skiddies().count_ones(), 1);
        assert!(!play.won(&one_out));
    }
}
