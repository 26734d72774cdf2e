//! How a replay of moves on a level ended.

use schemars::JsonSchema;
use serde::Serialize;

/// How a replay ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "ReplayStatus")]
pub enum Status {
    Won,
    Lost,
    Unfinished,
}

/// The outcome of replaying moves on a level.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Replay<X> {
    pub status: Status,
    /// Moves played until the level was won or lost (or all of them).
    pub moves_used: u32,
    /// Moves after the level was already won or lost.
    pub moves_ignored: u32,
    /// Why the level was lost, in words (only when it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: X,
}

impl<X> Replay<X> {
    /// Whether the replay won using at most `par` moves (the `par` medal).
    pub fn won_within(&self, par: u32) -> bool {
        self.status == Status::Won && self.moves_used <= par
    }
}
