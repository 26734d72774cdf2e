//! levelforge's games: each one a folder of pure, synchronous code behind [`Puzzle`].
//!
//! Nothing in this crate knows of HTTP, SQL or async runtimes; the service crate uses the
//! games only through [`registry`] and the object-safe [`Game`] trait.

pub mod bot;
pub mod contract;
pub mod core;
pub mod cpu;
pub mod difficulty;
mod document;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod game;
pub mod grid;
pub mod index;
pub mod memory;
pub mod play;
pub mod prior;
pub mod registry;
pub mod rng;
pub mod successors;
pub mod svg;

pub mod fruit;
pub mod hashi;
pub mod hopper;
pub mod skiddy;
pub mod tetropica;

/// Not registered: the game to copy when adding one (see registry.rs).
pub mod template;

pub use crate::bot::{BotPlay, SKILLS, Skill};
pub use crate::core::{
    Analysis, Dir, Exhausted, Hint, HintError, Limits, MoveList, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Stop, Tier,
};
pub use crate::difficulty::Difficulty;
pub use crate::game::{Accepted, CheckOutcome, Game, GameError, GenerateError, Generated, Summary};
pub use crate::play::Play;
pub use crate::prior::{Figures, PriorModel};
pub use crate::rng::LevelRng;
