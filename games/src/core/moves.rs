//! Moves: the four directions, their letter strings, and the move lists a hint cuts.

use std::any::TypeId;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use super::rule_error::RuleError;

/// A move direction; `y` grows downwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Dir {
    U,
    D,
    L,
    R,
}

impl Dir {
    /// Solvers try directions in this fixed order, which makes `solution` deterministic.
    pub const ALL: [Dir; 4] = [Dir::U, Dir::D, Dir::L, Dir::R];

    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir::U => (0, -1),
            Dir::D => (0, 1),
            Dir::L => (-1, 0),
            Dir::R => (1, 0),
        }
    }

    pub fn opposite(self) -> Dir {
        match self {
            Dir::U => Dir::D,
            Dir::D => Dir::U,
            Dir::L => Dir::R,
            Dir::R => Dir::L,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Dir::U => 'U',
            Dir::D => 'D',
            Dir::L => 'L',
            Dir::R => 'R',
        }
    }

    pub fn from_letter(c: char) -> Option<Dir> {
        match c {
            'U' => Some(Dir::U),
            'D' => Some(Dir::D),
            'L' => Some(Dir::L),
            'R' => Some(Dir::R),
            _ => None,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Parses a move string such as `"RULD"`; the error names the first bad character.
pub fn parse_moves(moves: &str) -> Result<Vec<Dir>, RuleError> {
    moves
        .chars()
        .enumerate()
        .map(|(i, c)| {
            Dir::from_letter(c).ok_or_else(|| {
                RuleError::new(
                    "moves.letters",
                    format!(
                        "move {} is `{c}`: moves are the letters U, D, L and R",
                        i + 1
                    ),
                )
            })
        })
        .collect()
}

/// The schema of a move string (the `Moves` and `Solution` of the tilt and hop games):
/// any string parses, and [`parse_moves`] turns a letter other than U, D, L, R into the
/// rule error `moves.letters`.
pub fn letters_schema() -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^[UDLR]*$",
        "description": "Moves as letters: U up, D down, L left, R right, played in order.",
    })
}

/// The schema of a game's moves or solution of type `T`: a `String` is letters in every
/// game that moves by strings ([`parse_moves`]); any other type has its derived schema.
pub(super) fn moves_schema_of<T: JsonSchema + 'static>(generator: &mut SchemaGenerator) -> Schema {
    if TypeId::of::<T>() == TypeId::of::<String>() {
        letters_schema()
    } else {
        generator.subschema_for::<T>()
    }
}

/// Renders a move list as the canonical string.
pub fn moves_to_string(moves: &[Dir]) -> String {
    moves.iter().map(|d| d.letter()).collect()
}

/// A move list a hint can cut and extend: a letter string or a list of placements.
pub trait MoveList: Clone {
    /// Moves in the list.
    fn count(&self) -> usize;
    /// The first `n` moves (all of them when there are fewer).
    fn prefix(&self, n: usize) -> Self;
}

impl MoveList for String {
    fn count(&self) -> usize {
        self.chars().count()
    }

    fn prefix(&self, n: usize) -> Self {
        self.chars().take(n).collect()
    }
}

impl<T: Clone> MoveList for Vec<T> {
    fn count(&self) -> usize {
        self.len()
    }

    fn prefix(&self, n: usize) -> Self {
        self[..n.min(self.len())].to_vec()
    }
}
