//! Step-by-step play: what a simulated player ([`crate::bot`]) needs of a game, in the
//! spirit of Simon Tatham's `game` struct (a state, the moves from it, a move applied,
//! the status). Each game implements [`Play`] in its folder on its own rules code, and
//! names it as [`crate::Puzzle::Play`].
//!
//! Nothing here solves a level: a position, its legal moves and one move's result are
//! what a player sees on the board.

use std::hash::Hash;

/// A level compiled for playing it one move at a time.
pub trait Play: Sized {
    /// The level as the game's `Puzzle` reads it.
    type Level;
    /// The move list `check` and `plays` take (the game's `Puzzle::Moves`).
    type Moves;
    /// Where a play stands: everything a move's result depends on.
    type Position: Clone + Eq + Hash;
    /// One move, as the position's legal moves list it.
    type Move: Clone;

    /// The compiled level and its starting position.
    fn start(level: &Self::Level) -> (Self, Self::Position);

    /// The moves that change `at`, in a fixed order. Empty when the play is stuck: won,
    /// no move changes anything, or the rules already rule a win out at a glance (a game
    /// says which in its `play.rs`).
    fn moves(&self, at: &Self::Position) -> Vec<Self::Move>;

    /// The moves a player weighs at `at` after thinking `insight` steps deep about the
    /// position itself (a bot's lookahead depth): every move unless the game's players
    /// reason about positions (hashi deduces: one move when the reasoning forces it, none
    /// when it shows the position lost, else the moves it does not rule out).
    fn weighed(&self, at: &Self::Position, insight: u32) -> Vec<Self::Move> {
        let _ = insight;
        self.moves(at)
    }

    /// The position one legal move leads to; `None` when the move loses the level.
    fn apply(&self, at: &Self::Position, step: &Self::Move) -> Option<Self::Position>;

    /// Whether the level is won at `at`.
    fn won(&self, at: &Self::Position) -> bool;

    /// Moves played from the start, in the format `check` and `plays` take.
    fn record(&self, line: &[Self::Move]) -> Self::Moves;
}
