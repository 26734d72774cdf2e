//! The shared vocabulary of every game, one file per purpose: the [`Puzzle`] trait each
//! game implements (`puzzle`), moves and directions (`moves`), how a search is bounded
//! (`limits`), the rule error (`rule_error`), the generation loop's tiers, analyses and
//! rejections (`generation`), replays (`replay`) and hints (`hint`).

mod generation;
mod hint;
mod limits;
mod moves;
mod puzzle;
mod replay;
mod rule_error;

pub use self::generation::{Analysis, Rejection, Tier};
pub use self::hint::{Hint, HintError};
pub use self::limits::{Exhausted, Limits, Stop};
pub use self::moves::{Dir, MoveList, letters_schema, moves_to_string, parse_moves};
pub use self::puzzle::{Piece, Puzzle};
pub use self::replay::{Replay, Status};
pub use self::rule_error::RuleError;
/// Every level key names one; re-exported here because every game speaks of it.
pub use crate::difficulty::Difficulty;
