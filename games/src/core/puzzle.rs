//! The [`Puzzle`] trait each game implements, and the editor's [`Piece`].

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, de::DeserializeOwned};

use super::generation::{Analysis, Rejection, Tier};
use super::hint::{Hint, HintError, hint_from};
use super::limits::{Exhausted, Limits};
use super::moves::{MoveList, moves_schema_of};
use super::replay::Replay;
use super::rule_error::RuleError;
use crate::difficulty::Difficulty;
use crate::play::Play;
use crate::rng::LevelRng;

/// One grid character an editor can place, with what it is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub char: char,
    pub name: &'static str,
}

impl Piece {
    pub const fn new(char: char, name: &'static str) -> Piece {
        Piece { char, name }
    }
}

/// One game, as a table of pure functions in the spirit of Simon Tatham's `game` struct.
/// Nothing here knows of HTTP, SQL or async; [`crate::registry`] turns it into a
/// [`crate::Game`] the service can use.
pub trait Puzzle: Send + Sync + 'static {
    /// The `game` name used in URLs and level JSON.
    const NAME: &'static str;
    const TITLE: &'static str;
    /// Bumped whenever a change would make a key produce a different level.
    const VERSION: u32;
    /// `solution_count` saturates here.
    const SOLUTION_COUNT_CAP: u64;
    /// The numeric or boolean entries of `metrics` designers compare levels by; `/stats`
    /// reports count, sum, mean and max of each (a boolean counts as 0 or 1).
    const KEY_METRICS: &'static [&'static str];

    /// Every rule id [`Puzzle::validate`] and [`Puzzle::replay`] can name (the shared
    /// `grid.*` and `moves.letters` included); the contract lists them for 422 answers
    /// and a test checks the list against the game's source.
    const RULES: &'static [&'static str];
    /// The grid characters an editor offers, the blank first: a click places the chosen
    /// piece, and a click on a cell that already holds it puts the blank back. A
    /// character that needs more than its cell (fruit's anteater and its facing) is left
    /// out; a test places each piece on the bench level to check the grid accepts it.
    const PALETTE: &'static [Piece];
    /// Every medal [`Puzzle::medals`] can award.
    const MEDALS: &'static [&'static str] = &["par"];
    /// The predicted-difficulty model, the JSON of the game's `prior.json`
    /// ([`crate::prior`]; `levelforge calibrate` writes it).
    const PRIOR: &'static str;

    /// Width, height, grid and the game's extra fields, in the JSON shape of docs/games.md.
    /// Its JSON Schema (as every type below) is the game's part of the HTTP contract.
    type Level: Serialize + DeserializeOwned + Clone + Send + JsonSchema;
    type Params: Serialize + Clone + Send + Sync;
    type Solution: Serialize + DeserializeOwned + Clone + Send + JsonSchema + 'static;
    /// The game's own metrics, flattened into `metrics`.
    type Metrics: Serialize + Clone + Send + JsonSchema;
    /// What `check` and `plays` take in `moves`. The JSON of a `Solution` must parse as
    /// `Moves` and replay to a win in exactly `par` moves (the catalog tests check it).
    type Moves: DeserializeOwned + Serialize + JsonSchema + MoveList + 'static;
    /// Extra fields of a replay outcome.
    type ReplayExtra: Serialize + JsonSchema;
    /// The level played one move at a time, as a simulated player plays it
    /// ([`crate::bot`]); its moves are recorded in the `Moves` format.
    type Play: Play<Level = Self::Level, Moves = Self::Moves>;

    /// The JSON Schema of `Moves`: [`letters_schema`](super::moves::letters_schema) for a `String`, else the type's
    /// derived schema; a game whose moves need more words says them here.
    fn moves_schema(generator: &mut SchemaGenerator) -> Schema {
        moves_schema_of::<Self::Moves>(generator)
    }

    /// The JSON Schema of `Solution`, as for [`Puzzle::moves_schema`].
    fn solution_schema(generator: &mut SchemaGenerator) -> Schema {
        moves_schema_of::<Self::Solution>(generator)
    }

    fn tier(difficulty: Difficulty) -> Tier<Self::Params>;

    /// One candidate from the RNG. Pure: same params and RNG state, same candidate.
    fn generate(
        params: &Self::Params,
        rng: &mut LevelRng,
        limits: &Limits,
    ) -> Result<Self::Level, Rejection>;

    /// Checks every rule of the level format; the error names the rule broken.
    fn validate(level: &Self::Level) -> Result<(), RuleError>;

    /// Solves a valid level completely within the limits.
    fn analyze(
        level: &Self::Level,
        limits: &Limits,
    ) -> Result<Analysis<Self::Solution, Self::Metrics>, Exhausted>;

    /// Acceptance beyond the par window (which the pipeline checks); `Err` names why not.
    /// Default: none.
    fn accept(
        _tier: &Tier<Self::Params>,
        _analysis: &Analysis<Self::Solution, Self::Metrics>,
    ) -> Result<(), &'static str> {
        Ok(())
    }

    /// Replays moves by the rules on a valid level.
    fn replay(
        level: &Self::Level,
        moves: &Self::Moves,
    ) -> Result<Replay<Self::ReplayExtra>, RuleError>;

    /// Medals a replay earned, given the level's par. Default: `par` for a win within par.
    fn medals(par: u32, replay: &Replay<Self::ReplayExtra>) -> Vec<&'static str> {
        if replay.won_within(par) {
            vec!["par"]
        } else {
            Vec::new()
        }
    }

    /// An SVG picture of the level, with the solution drawn when given.
    fn preview_svg(level: &Self::Level, solution: Option<&Self::Solution>) -> String;

    /// A best line from the position `moves` reach (moves after a win or loss ignored):
    /// the moves still needed to win, fewest first, in the `Moves` format; empty when the
    /// moves won, `None` when they lost or no win can be reached from there. Exact within
    /// the limits: a deterministic function of level, moves and `max_states`.
    fn best_line(
        level: &Self::Level,
        moves: &Self::Moves,
        limits: &Limits,
    ) -> Result<Option<Self::Moves>, HintError>;

    /// The position `moves` reach as a level of its own, that [`Puzzle::validate`]
    /// accepts; `None` when the level format cannot express it (a won or lost position,
    /// or a game piece the format has no symbol for).
    fn position(level: &Self::Level, moves: &Self::Moves)
    -> Result<Option<Self::Level>, RuleError>;

    /// Whether a hint names the placement that contradicts every solution (`conflict`):
    /// for games whose moves place parts of one final picture (links, pieces).
    const NAMES_CONFLICT: bool = false;

    /// A hint for the position `moves` reach, built on [`Puzzle::best_line`] (the
    /// longest winnable prefix of the moves is found by bisection).
    fn hint(
        level: &Self::Level,
        moves: &Self::Moves,
        limits: &Limits,
    ) -> Result<Hint<Self::Moves>, HintError> {
        let replay = Self::replay(level, moves)?;
        hint_from(
            replay.status,
            replay.moves_used,
            moves,
            Self::NAMES_CONFLICT,
            |prefix| Self::best_line(level, prefix, limits),
        )
    }

    /// A fixed level that is heavy for this game's solver: `levelforge bench` reports
    /// the analysis speed (states per second) on it. [`crate::game::level_of_key`]
    /// gives a generated one.
    fn bench_level() -> Self::Level;
}
