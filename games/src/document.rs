//! The documents a key serves, as Rust types: [`crate::game`] serialises them and
//! [`crate::contract`] derives their JSON Schemas, so that both follow one shape.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::core::Difficulty;

/// The level document a key serves (its JSON Schema is the game's `Level` in the contract).
#[derive(Serialize, JsonSchema)]
pub(crate) struct LevelDocument<'a, L, S, M: 'a> {
    /// The game's name.
    pub(crate) game: &'static str,
    pub(crate) difficulty: Difficulty,
    /// The key's seed, a u64. Beyond 2^53 JavaScript's `JSON.parse` rounds it: such a
    /// client keys levels by the URL's seed (a string), not by this number.
    pub(crate) seed: u64,
    /// The generator version that made this level.
    pub(crate) version: u32,
    #[serde(flatten)]
    pub(crate) level: &'a L,
    /// Fewest moves (tilt and hop games), links (hashi) or pieces (tetropica) to win.
    pub(crate) par: u32,
    /// One optimal solution, in the game's move format.
    pub(crate) solution: &'a S,
    /// Written verbatim: the same bytes as [`crate::game::Summary::metrics`]; its schema is the typed
    /// [`MetricsDocument`] those bytes were serialised from.
    #[schemars(with = "MetricsDocument<'a, M>")]
    pub(crate) metrics: &'a RawValue,
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) metrics_type: PhantomData<M>,
}

/// A level's `metrics`: the pipeline's figures and the game's own beside them.
#[derive(Serialize, JsonSchema)]
pub(crate) struct MetricsDocument<'a, M> {
    /// Candidates generated until this one was accepted.
    pub(crate) attempts: u32,
    /// Wall time of the whole generation (not deterministic).
    pub(crate) generate_ms: u64,
    /// Wall time spent in the solver over all candidates (not deterministic).
    pub(crate) solve_ms: u64,
    /// States the solver expanded on this level.
    pub(crate) states: u64,
    /// Optimal solutions, saturating at `solution_count_cap`.
    pub(crate) solution_count: u64,
    /// Where `solution_count` saturates for this game.
    pub(crate) solution_count_cap: u64,
    #[serde(flatten)]
    pub(crate) extra: &'a M,
}
