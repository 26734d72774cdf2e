//! Tetropica played one placement at a time, on the compiled board of `rules.rs` and the
//! list of every placement that fits the board's tiles (the solver's `Table`, used here
//! only as that list: a player sees the same placements on the board).

use super::TetropicaLevel;
use super::rules::{Board, Play as Carving};
use super::solver::Table;
use super::{Placement, to_placement};

/// A tetropica level being played; a position is the tiles carved and the pieces held.
pub struct TetropicaPlay {
    board: Board,
    table: Table,
}

impl crate::play::Play for TetropicaPlay {
    type Level = TetropicaLevel;
    type Moves = Vec<Placement>;
    type Position = Carving;
    /// A placement, as its index in the table.
    type Move = u32;

    fn start(level: &TetropicaLevel) -> (TetropicaPlay, Carving) {
        let board = Board::compile(level);
        let start = Carving::start(&board);
        let table = Table::build(&board);
        (TetropicaPlay { board, table }, start)
    }

    /// Every placement of a held piece on tiles still standing, next to an empty cell
    /// (the rule `move.not_adjacent`); none once won.
    fn moves(&self, at: &Carving) -> Vec<u32> {
        if self.won(at) {
            return Vec::new();
        }
        let open = self.board.empty | at.carved;
        (0..self.table.list.len() as u32)
            .filter(|&i| {
                let c = &self.table.list[i as usize];
                at.hand.has(c.kind) && c.mask & at.carved == 0 && c.halo & open != 0
            })
            .collect()
    }

    /// Tetropica has no loss.
    fn apply(&self, at: &Carving, step: &u32) -> Option<Carving> {
        let candidate = &self.table.list[*step as usize];
        Some(Carving {
            carved: at.carved | candidate.mask,
            hand: at.hand.take(candidate.kind),
        })
    }

    fn won(&self, at: &Carving) -> bool {
        self.board.joined(at.carved)
    }

    fn record(&self, line: &[u32]) -> Vec<Placement> {
        line.iter()
            .map(|&i| to_placement(&self.board, &self.table.list[i as usize]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Puzzle, Status};
    use crate::play::Play;
    use crate::tetropica::Tetropica;
    use crate::tetropica::tests::{TWO_ROWS, level};

    #[test]
    fn two_rows_take_one_i_each_and_the_record_replays_as_a_win() {
        // An I fits each tile row, one next to S, the other next to E; no other I fits.
        let lv = level(&TWO_ROWS, "II");
        let (play, start) = TetropicaPlay::start(&lv);
        let moves = play.moves(&start);
        assert_eq!(moves.len(), 2);
        let first = play.apply(&start, &moves[0]).unwrap();
        assert!(!play.won(&first));
        let second = play.moves(&first);
        assert_eq!(second.len(), 1);
        let won = play.apply(&first, &second[0]).unwrap();
        assert!(play.won(&won));
        assert!(play.moves(&won).is_empty());
        let replay = Tetropica::replay(&lv, &play.record(&[moves[0], second[0]])).unwrap();
        assert_eq!((replay.status, replay.moves_used), (Status::Won, 2));
    }

    #[test]
    fn only_held_pieces_next_to_an_empty_cell_are_offered() {
        // An O fits three squares across the two rows; the middle one touches no empty
        // cell. Placing either other one uses the hand up without joining S and E.
        let lv = level(&TWO_ROWS, "O");
        let (play, start) = TetropicaPlay::start(&lv);
        let moves = play.moves(&start);
        let placed = play.record(&moves);
        let firsts: Vec<[i64; 2]> = placed.iter().map(|p| p.cells[0]).collect();
        assert_eq!(firsts, vec![[1, 0], [3, 0]]);
        assert!(placed.iter().all(|p| p.piece == "O"));
        let stuck = play.apply(&start, &moves[0]).unwrap();
        assert!(!play.won(&stuck));
        assert!(play.moves(&stuck).is_empty());
    }
}
