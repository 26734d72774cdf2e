//! Fruit played one tilt at a time, on the compiled board of `rules.rs`.

use crate::core::{Dir, moves_to_string};
use crate::play::Play;

use super::FruitLevel;
use super::rules::Board;

/// A fruit level being played: the board's fixed part; a position is the tilt state
/// (one word per colour, then the stones).
pub struct FruitPlay {
    board: Board,
}

impl Play for FruitPlay {
    type Level = FruitLevel;
    type Moves = String;
    type Position = Vec<u64>;
    type Move = Dir;

    fn start(level: &FruitLevel) -> (FruitPlay, Vec<u64>) {
        let (board, state) = Board::compile(level);
        (FruitPlay { board }, state)
    }

    /// Every tilt that moves something or loses; none once won.
    fn moves(&self, at: &Vec<u64>) -> Vec<Dir> {
        if self.won(at) {
            return Vec::new();
        }
        let mut out = vec![0; at.len()];
        Dir::ALL
            .into_iter()
            .filter(|&d| self.board.tilt_explained(at, d, &mut out) != Ok(false))
            .collect()
    }

    fn apply(&self, at: &Vec<u64>, step: &Dir) -> Option<Vec<u64>> {
        let mut out = vec![0; at.len()];
        self.board.tilt_explained(at, *step, &mut out).ok()?;
        Some(out)
    }

    fn won(&self, at: &Vec<u64>) -> bool {
        self.board.is_win(at)
    }

    fn record(&self, line: &[Dir]) -> String {
        moves_to_string(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fruit::tests::level;

    #[test]
    fn a_tilt_that_moves_nothing_is_no_move_and_one_into_mud_loses() {
        // Up and down move nothing; left and right slide a fruit into mud.
        let (play, start) = FruitPlay::start(&level(&["#######", "#~a~a~#", "#######"]));
        assert_eq!(play.moves(&start), vec![Dir::L, Dir::R]);
        assert_eq!(play.apply(&start, &Dir::L), None);
        assert!(!play.won(&start));
    }

    #[test]
    fn the_two_tilts_of_a_hand_worked_level_win_and_record_as_letters() {
        // Up leaves the pair in one row with a gap; left closes it (tests.rs, "UL").
        let (play, start) =
            FruitPlay::start(&level(&["######", "#a...#", "#.##.#", "#...a#", "######"]));
        assert_eq!(play.moves(&start), Dir::ALL.to_vec());
        let up = play.apply(&start, &Dir::U).unwrap();
        assert!(!play.won(&up));
        let won = play.apply(&up, &Dir::L).unwrap();
        assert!(play.won(&won));
        assert!(play.moves(&won).is_empty());
        assert_eq!(play.record(&[Dir::U, Dir::L]), "UL");
    }
}
