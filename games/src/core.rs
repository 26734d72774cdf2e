//! The shared vocabulary of every game: difficulty tiers, directions, solver limits,
//! errors, and the [`Puzzle`] trait each game implements.

use std::any::TypeId;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::play::Play;
use crate::rng::LevelRng;

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
fn moves_schema_of<T: JsonSchema + 'static>(generator: &mut SchemaGenerator) -> Schema {
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

/// A request to stop searching: set from outside (cancellation) or by a wall-clock
/// deadline. Hitting it aborts the whole generation, never just skips a candidate, so
/// that time can never change which level a key gets.
#[derive(Debug, Default)]
pub struct Stop {
    flag: AtomicBool,
    deadline: Option<Instant>,
}

impl Stop {
    pub fn never() -> Self {
        Stop::default()
    }

    pub fn at(deadline: Instant) -> Self {
        Stop {
            flag: AtomicBool::new(false),
            deadline: Some(deadline),
        }
    }

    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    pub fn requested(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Limits of one solver run: a deterministic state cap and the shared stop request.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    pub max_states: u64,
    pub stop: &'a Stop,
}

impl Limits<'_> {
    /// Call once per expanded state with the running count; cheap except every 4096th call.
    #[inline]
    pub fn tick(&self, states: u64) -> Result<(), Exhausted> {
        if states > self.max_states {
            return Err(Exhausted::States(self.max_states));
        }
        if states.is_multiple_of(4096) && self.stop.requested() {
            return Err(Exhausted::Stopped);
        }
        Ok(())
    }
}

/// Why a solver gave up before finishing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// More states than the cap: a deterministic verdict on this level.
    States(u64),
    /// Stopped from outside (deadline or cancellation).
    Stopped,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exhausted::States(cap) => write!(f, "gave up after {cap} states (the state budget)"),
            Exhausted::Stopped => f.write_str("gave up: the time budget ran out"),
        }
    }
}

/// A level (or move list) that breaks a rule of its game. `rule` is a stable identifier,
/// `message` says what is wrong in words a designer understands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleError {
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        RuleError {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (rule {})", self.message, self.rule)
    }
}

impl std::error::Error for RuleError {}

/// Why the generator threw a candidate away before (or instead of) analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The candidate is unusable; the reason is counted in the metrics.
    Candidate(&'static str),
    /// A stop was requested: abort the whole generation.
    Stopped,
}

impl From<Exhausted> for Rejection {
    fn from(e: Exhausted) -> Self {
        match e {
            Exhausted::States(_) => Rejection::Candidate("state budget"),
            Exhausted::Stopped => Rejection::Stopped,
        }
    }
}

/// A tier: the generator's parameters and the acceptance window on the solver's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Tier<P> {
    pub params: P,
    pub par_min: u32,
    /// `None`: no upper bound.
    pub par_max: Option<u32>,
    /// Other acceptance conditions, in words (the code is in `Puzzle::accept`).
    pub requires: Vec<&'static str>,
    /// Candidates tried before the key is declared unservable.
    pub max_attempts: u32,
    /// States one analysis may expand before the candidate is rejected.
    pub max_states: u64,
}

impl<P> Tier<P> {
    pub fn par_in_window(&self, par: u32) -> bool {
        par >= self.par_min && self.par_max.is_none_or(|max| par <= max)
    }
}

/// The solver's findings on one level.
#[derive(Clone, Debug)]
pub struct Analysis<S, M> {
    /// The optimal value the game defines; `None` when the level cannot be won.
    pub par: Option<u32>,
    /// One optimal solution, present exactly when `par` is.
    pub solution: Option<S>,
    /// States the solver expanded.
    pub states: u64,
    /// Optimal solutions counted, saturating at the game's `SOLUTION_COUNT_CAP`.
    pub solution_count: u64,
    /// The game's own figures.
    pub extra: M,
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

/// What a player should do next from the position some moves reach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Hint<M> {
    /// How the moves ended, as `check` says.
    pub status: Status,
    /// Moves played until the level was won or lost (or all of them), as `check` says.
    pub moves_used: u32,
    /// Moves (links, pieces) still needed by the best line: 0 when won, `null` when no
    /// win can be reached from the position.
    pub distance: Option<u32>,
    /// One best next move, in the `moves` format, to append to the moves; `null` when
    /// won or at a dead end.
    pub next: Option<M>,
    /// At a dead end: the fewest moves to take back from the end of `moves` to reach a
    /// position that can still be won (`null` otherwise, or when even the start cannot).
    pub undo: Option<u32>,
    /// Games of links and pieces, at a dead end: the index in `moves` of the first one
    /// that contradicts every solution (`null` otherwise and in other games).
    pub conflict: Option<u32>,
}

/// Why a hint could not be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HintError {
    /// The moves break a rule (as in `check`).
    Rule(RuleError),
    /// A search ran out of its budget.
    GaveUp(Exhausted),
    /// The game answers from a level's one solution, and this level has more than one
    /// (no served level does).
    NotUnique,
}

impl From<RuleError> for HintError {
    fn from(e: RuleError) -> Self {
        HintError::Rule(e)
    }
}

impl From<Exhausted> for HintError {
    fn from(e: Exhausted) -> Self {
        HintError::GaveUp(e)
    }
}

/// The longest prefix of the first `used` moves from which a win can still be reached,
/// as its length; `None` when not even the start can be won. Winnable prefixes are
/// closed under shortening, so bisection finds the boundary.
fn longest_winnable_prefix<P: Puzzle + ?Sized>(
    level: &P::Level,
    moves: &P::Moves,
    used: usize,
    limits: &Limits,
) -> Result<Option<usize>, HintError> {
    let winnable = |n: usize| -> Result<bool, HintError> {
        Ok(P::best_line(level, &moves.prefix(n), limits)?.is_some())
    };
    if used == 0 || !winnable(0)? {
        return Ok(None);
    }
    // Invariant: `lo` moves can still win, `hi` moves cannot.
    let (mut lo, mut hi) = (0, used);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if winnable(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

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

    /// The JSON Schema of `Moves`: [`letters_schema`] for a `String`, else the type's
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

    /// A hint for the position `moves` reach: built on [`Puzzle::best_line`], and on
    /// the fact that a prefix of a winnable prefix is winnable (the moves between lead
    /// from one to the other), so the longest winnable prefix is found by bisection.
    fn hint(
        level: &Self::Level,
        moves: &Self::Moves,
        limits: &Limits,
    ) -> Result<Hint<Self::Moves>, HintError> {
        let replay = Self::replay(level, moves)?;
        let used = replay.moves_used as usize;
        let line = match replay.status {
            Status::Won => Some(moves.prefix(0)),
            Status::Lost => None,
            Status::Unfinished => Self::best_line(level, &moves.prefix(used), limits)?,
        };
        let mut hint = Hint {
            status: replay.status,
            moves_used: replay.moves_used,
            distance: None,
            next: None,
            undo: None,
            conflict: None,
        };
        match line {
            Some(line) => {
                hint.distance = Some(line.count() as u32);
                hint.next = (line.count() > 0).then(|| line.prefix(1));
            }
            None => {
                let kept = longest_winnable_prefix::<Self>(level, moves, used, limits)?;
                hint.undo = kept.map(|k| (moves.count() - k) as u32);
                hint.conflict = kept.filter(|_| Self::NAMES_CONFLICT).map(|k| k as u32);
            }
        }
        Ok(hint)
    }

    /// A fixed level that is heavy for this game's solver: `levelforge bench` reports
    /// the analysis speed (states per second) on it. [`crate::game::level_of_key`]
    /// gives a generated one.
    fn bench_level() -> Self::Level;
}
