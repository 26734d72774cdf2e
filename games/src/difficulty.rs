//! The difficulty tiers a level key names.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The four tiers every game serves, and `Custom`: hand-made levels, which no generator
/// makes and no tier window judges (their seed is a hash of their content, see
/// [`crate::game::content_seed`]).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
    Expert,
    Custom,
}

impl Difficulty {
    /// The generated tiers (not [`Difficulty::Custom`]).
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Easy,
        Difficulty::Medium,
        Difficulty::Hard,
        Difficulty::Expert,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
            Difficulty::Expert => "expert",
            Difficulty::Custom => "custom",
        }
    }

    /// Whether a generator makes this difficulty's levels (every tier but `Custom`).
    pub fn is_generated(self) -> bool {
        self != Difficulty::Custom
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Difficulty {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Difficulty::ALL
            .into_iter()
            .chain([Difficulty::Custom])
            .find(|d| d.as_str() == s)
            .ok_or_else(|| {
                format!("unknown difficulty `{s}`: expected easy, medium, hard, expert or custom")
            })
    }
}
