//! `fruit` — Fruit Dating: tilt the board until every fruit has met its partner.
//! Rules: games/src/fruit/README.md. Generator: Tom Atom's walls and weights, then the "un-solve"
//! trick (start from the reachable board farthest from any win).

mod generator;
mod graph;
mod play;
mod preview;
pub mod rules;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{
    Analysis, Difficulty, Dir, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier, moves_to_string, parse_moves,
};
#[cfg(target_arch = "x86_64")]
use crate::cpu::bit_instructions;
use crate::rng::LevelRng;

use rules::Board;

pub use generator::FruitParams;

/// A one-way border or an anteater's facing: a cell and a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FruitArrow")]
pub struct Arrow {
    /// Column, 0 at the left.
    #[schemars(range(max = 7))]
    pub x: usize,
    /// Row, 0 at the top.
    #[schemars(range(max = 7))]
    pub y: usize,
    /// A one-way border lets fruit cross from this cell in `dir` only; an anteater
    /// faces `dir`.
    pub dir: Dir,
}

/// A fruit level in the JSON shape of games/src/fruit/README.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FruitLevel {
    /// Columns of the board (3 to 8).
    #[schemars(range(min = 3, max = 8))]
    pub width: usize,
    /// Rows of the board (3 to 8).
    #[schemars(range(min = 3, max = 8))]
    pub height: usize,
    /// One string per row, top first: `#` wall, `.` floor, `~` water, `a`-`h` fruit (two of
    /// each), `o` stone, `H` hole, `A` anteater. The outer ring is wall.
    #[schemars(
        length(min = 3, max = 8),
        inner(regex(pattern = r"^[#.~a-hoHA]{3,8}$"))
    )]
    pub grid: Vec<String>,
    /// Borders that fruit crosses in one direction only.
    #[serde(default)]
    pub one_ways: Vec<Arrow>,
    /// The facing of every `A` cell, one entry each.
    #[serde(default)]
    pub anteaters: Vec<Arrow>,
}

/// Fruit's own metrics.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct FruitMetrics {
    /// Reachable boards (not won, not lost) from which no win can be reached.
    pub dead_ends: u64,
    /// Reachable boards, the start included.
    pub reachable: u64,
    /// Fruit pairs on the board.
    pub pairs: u32,
    /// Stones `o` on the board.
    pub stones: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct FruitReplay {
    /// Pairs not yet together.
    pub pairs_left: u32,
}

pub struct Fruit;

/// Optimal solutions are counted up to this many.
const SOLUTION_CAP: u64 = 1_000_000;

impl Puzzle for Fruit {
    const NAME: &'static str = "fruit";
    const TITLE: &'static str = "Fruit Dating";
    const VERSION: u32 = 3;
    const SOLUTION_COUNT_CAP: u64 = SOLUTION_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] = &["dead_ends", "reachable", "pairs", "stones"];
    const PALETTE: &'static [Piece] = &[
        Piece::new('.', "floor"),
        Piece::new('#', "wall"),
        Piece::new('~', "mud"),
        Piece::new('a', "fruit a"),
        Piece::new('b', "fruit b"),
        Piece::new('c', "fruit c"),
        Piece::new('d', "fruit d"),
        Piece::new('e', "fruit e"),
        Piece::new('f', "fruit f"),
        Piece::new('g', "fruit g"),
        Piece::new('h', "fruit h"),
        Piece::new('o', "stone"),
        Piece::new('H', "hedgehog"),
    ];
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "fruit.border",
        "fruit.one_way",
        "fruit.start_match",
        "fruit.pairs",
        "fruit.anteater",
        "moves.letters",
    ];

    type Level = FruitLevel;
    type Params = FruitParams;
    type Solution = String;
    type Metrics = FruitMetrics;
    type Moves = String;
    type ReplayExtra = FruitReplay;
    type Play = play::FruitPlay;

    fn tier(difficulty: Difficulty) -> Tier<FruitParams> {
        generator::tier(difficulty)
    }

    fn generate(
        params: &FruitParams,
        rng: &mut LevelRng,
        limits: &Limits,
    ) -> Result<FruitLevel, Rejection> {
        generator::generate(params, rng, limits)
    }

    fn validate(level: &FruitLevel) -> Result<(), RuleError> {
        rules::validate(level)
    }

    fn analyze(
        level: &FruitLevel,
        limits: &Limits,
    ) -> Result<Analysis<String, FruitMetrics>, Exhausted> {
        let (board, start) = Board::compile(level);
        let mut graph = explore(&board, &start, limits)?;
        // The keys are most of the graph's memory, and what follows does not need them:
        // nor the distances themselves, for the solution and the dead ends.
        graph.forget_states();
        let solution = graph.shortest_win();
        let (states, reachable) = (graph.expanded, graph.len() as u64);
        let solution_count = graph.optimal_paths(SOLUTION_CAP);
        Ok(Analysis {
            par: solution.as_ref().map(|s| s.len() as u32),
            solution: solution.map(|s| moves_to_string(&s)),
            states,
            solution_count,
            extra: FruitMetrics {
                // Last: it takes the graph.
                dead_ends: graph.dead_ends(),
                reachable,
                pairs: board.pairs_left(&start),
                stones: start[board.letters.len()].count_ones(),
            },
        })
    }

    fn accept(
        tier: &Tier<FruitParams>,
        analysis: &Analysis<String, FruitMetrics>,
    ) -> Result<(), &'static str> {
        let (fewest, most) = tier.params.dead_ends;
        let dead_ends = analysis.extra.dead_ends;
        if dead_ends < fewest || most.is_some_and(|m| dead_ends > m) {
            return Err("dead ends outside the tier's range");
        }
        Ok(())
    }

    fn replay(level: &FruitLevel, moves: &String) -> Result<Replay<FruitReplay>, RuleError> {
        let moves = parse_moves(moves)?;
        let (board, mut state) = Board::compile(level);
        let mut next = vec![0; state.len()];
        let mut status = Status::Unfinished;
        let mut reason = None;
        let mut used = 0;
        for &dir in &moves {
            used += 1;
            match board.tilt_explained(&state, dir, &mut next) {
                Err(loss) => {
                    status = Status::Lost;
                    reason = Some(loss.describe().to_string());
                    break;
                }
                Ok(_) => state.copy_from_slice(&next),
            }
            if board.is_win(&state) {
                status = Status::Won;
                break;
            }
        }
        Ok(Replay {
            status,
            moves_used: used,
            moves_ignored: moves.len() as u32 - used,
            reason,
            extra: FruitReplay {
                pairs_left: board.pairs_left(&state),
            },
        })
    }

    fn best_line(
        level: &FruitLevel,
        moves: &String,
        limits: &Limits,
    ) -> Result<Option<String>, HintError> {
        let (board, start) = Board::compile(level);
        let Some(state) = state_after(&board, start, &parse_moves(moves)?) else {
            return Ok(None);
        };
        let mut graph = explore(&board, &state, limits)?;
        graph.forget_states();
        Ok(graph.shortest_win().map(|line| moves_to_string(&line)))
    }

    fn position(level: &FruitLevel, moves: &String) -> Result<Option<FruitLevel>, RuleError> {
        let (board, start) = Board::compile(level);
        let state = state_after(&board, start, &parse_moves(moves)?);
        Ok(state
            .filter(|s| !board.is_win(s) && board.expressible(s))
            .map(|s| rules::render(level, &board, &s)))
    }

    fn preview_svg(level: &FruitLevel, solution: Option<&String>) -> String {
        preview::render(level, solution.map(String::as_str))
    }

    /// Version 1's expert level of seed 6, the one with the most solver states among
    /// seeds 1..=100 (55,977), kept as a document so that no version bump changes what
    /// the benchmarks measure.
    fn bench_level() -> FruitLevel {
        serde_json::from_str(include_str!("bench_level.json")).expect("the bench level parses")
    }
}

/// The board `moves` reach from `state`, stopping at a win; `None` when they lost.
fn state_after(board: &Board, mut state: Vec<u64>, moves: &[Dir]) -> Option<Vec<u64>> {
    let mut next = vec![0; state.len()];
    for &dir in moves {
        if board.is_win(&state) {
            break;
        }
        board.tilt_explained(&state, dir, &mut next).ok()?;
        state.copy_from_slice(&next);
    }
    Some(state)
}

/// Calls `$f::<W, K>(board, start, limits)` with the state width of `start` (colours
/// plus one) and its key width as constants, so that each width gets a solver with its
/// loops unrolled.
macro_rules! at_width {
    ($f:ident($board:expr, $start:expr, $limits:expr)) => {
        at_width!(@ $f, $board, $start, $limits; 1 2 3 4 5 6 7 8 9)
    };
    (@ $f:ident, $board:expr, $start:expr, $limits:expr; $($w:literal)*) => {
        match $start.len() {
            $($w => $f::<$w, { rules::key_words($w) }>(
                $board,
                $start.try_into().expect("width matched"),
                $limits,
            ),)*
            n => unreachable!("a state has one word per colour (at most 8) plus one, not {n}"),
        }
    };
}

/// The complete reachable graph of a compiled board.
pub(crate) fn explore(
    board: &Board,
    start: &[u64],
    limits: &Limits,
) -> Result<graph::Graph, Exhausted> {
    at_width!(explore_fixed(board, start, limits))
}

fn explore_fixed<const W: usize, const K: usize>(
    board: &Board,
    start: &[u64; W],
    limits: &Limits,
) -> Result<graph::Graph, Exhausted> {
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the instructions it is compiled for were just detected.
        return unsafe { explore_with_bit_instructions::<W, K>(board, start, limits) };
    }
    explore_portable::<W, K>(board, start, limits)
}

/// The search a CPU without the bit instructions takes.
fn explore_portable<const W: usize, const K: usize>(
    board: &Board,
    start: &[u64; W],
    limits: &Limits,
) -> Result<graph::Graph, Exhausted> {
    // SAFETY: without `BMI2`, no instruction beyond the baseline.
    unsafe { explore_with::<W, K, false>(board, start, limits) }
}

/// [`explore_with`] compiled with the bit instructions of x86-64 CPUs since 2013
/// (three-operand shifts and rotations, AND-NOT, bit scans): the same search in fewer
/// instructions (54.5 M against 48.8 M on the bench level). The baseline target may not
/// assume them: they are chosen at run time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
fn explore_with_bit_instructions<const W: usize, const K: usize>(
    board: &Board,
    start: &[u64; W],
    limits: &Limits,
) -> Result<graph::Graph, Exhausted> {
    // SAFETY: this function is compiled for BMI2, and only called where the CPU has it.
    unsafe { explore_with::<W, K, true>(board, start, limits) }
}

/// The search for a state of `W` words: the portable route, and inlined into
/// [`explore_with_bit_instructions`] with `BMI2`, where rows slide by
/// [`Board::tilt_with_bmi2`].
///
/// # Safety
/// With `BMI2`, the CPU must have it.
#[inline(always)]
unsafe fn explore_with<const W: usize, const K: usize, const BMI2: bool>(
    board: &Board,
    start: &[u64; W],
    limits: &Limits,
) -> Result<graph::Graph, Exhausted> {
    graph::explore(
        start,
        limits,
        // Inlined into each direction's copy in the search, where the direction is a
        // constant: left to itself the compiler calls it (+3.4 M on the bench level).
        #[inline(always)]
        |s, d, out| {
            #[cfg(target_arch = "x86_64")]
            if BMI2 {
                // SAFETY: the caller's contract.
                return unsafe { board.tilt_with_bmi2(s, d, out) };
            }
            board.tilt(s, d, out)
        },
        |s| board.is_win(s),
        graph::Codec {
            pack: rules::pack::<W, K>,
            unpack: rules::unpack::<W, K>,
        },
    )
}

#[cfg(test)]
mod tests;
