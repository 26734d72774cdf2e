//! `tetropica` — carve a path from S to E with exactly the given tetrominoes.
//! Rules: games/src/tetropica/README.md. Generator: Vestberg's improved method (obstacles rolled first,
//! a reachability check, the BFS distance matrix from E around rock, and a greedy
//! placement search over every piece and rotation that picks the hand); the exact solver
//! in `solver.rs` then proves that no sub-solution exists and counts the solutions.

mod generator;
mod play;
mod preview;
pub mod rules;
pub mod solver;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{
    Analysis, Difficulty, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier,
};
use crate::grid;
use crate::rng::LevelRng;
use rules::{Board, Play, bits, carve_distance, letter_of};
use solver::{COUNT_CAP, Candidate, Table};

pub use generator::TetropicaParams;

/// A tetropica level in the JSON shape of games/src/tetropica/README.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TetropicaLevel {
    /// Columns of the board (1 to 11).
    #[schemars(range(min = 1, max = 11))]
    pub width: usize,
    /// Rows of the board (1 to 11).
    #[schemars(range(min = 1, max = 11))]
    pub height: usize,
    /// One string per row, top first: `o` destructible tile, `#` rock, `.` open, `S` the
    /// start and `E` the end (one each).
    #[schemars(length(min = 1, max = 11), inner(regex(pattern = r"^[#o.SE]{1,11}$")))]
    pub grid: Vec<String>,
    /// The hand, as letters from `IOTSZJL` (at most 15).
    #[schemars(regex(pattern = r"^[IOTSZJL]{0,15}$"))]
    pub pieces: String,
}

/// One move: a held piece and the four cells it empties, `[x, y]` each. Also the element
/// of `solution`. Coordinates are signed so that a cell off the board is a rule error,
/// not a malformed document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TetropicaPlacement")]
pub struct Placement {
    /// The piece's letter, one of `IOTSZJL`, taken from the hand.
    #[schemars(regex(pattern = r"^[IOTSZJL]$"))]
    pub piece: String,
    /// The four cells `[x, y]` it empties, a rotation of the piece's shape.
    #[schemars(length(min = 4, max = 4))]
    pub cells: Vec<[i64; 2]>,
}

/// Tetropica's own metrics.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct TetropicaMetrics {
    /// Pieces in the hand (= `par` when the level can be won with all of them).
    pub pieces: u32,
    /// The fewest pieces of the hand that join S and E (`null`: no choice does). Served
    /// levels have `min_pieces == pieces`: no sub-solution.
    pub min_pieces: Option<u32>,
    /// Tiles on the cheapest S–E path through destructible tiles (`null`: none).
    pub shortest_carve: Option<u32>,
    /// Destructible tiles `o`.
    pub tiles: u32,
    /// Rocks `#`.
    pub rocks: u32,
    /// Placements of any piece the board's tiles can hold.
    pub placements: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TetropicaReplay {
    /// The pieces still held after the placements used.
    pub pieces_left: String,
}

pub struct Tetropica;

impl Puzzle for Tetropica {
    const NAME: &'static str = "tetropica";
    const TITLE: &'static str = "Tetropica";
    const VERSION: u32 = 1;
    const SOLUTION_COUNT_CAP: u64 = COUNT_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] = &["pieces", "min_pieces", "placements", "rocks"];
    const PALETTE: &'static [Piece] = &[
        Piece::new('o', "tile"),
        Piece::new('#', "rock"),
        Piece::new('.', "empty"),
        Piece::new('S', "start"),
        Piece::new('E', "end"),
    ];
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "tetropica.start",
        "tetropica.end",
        "tetropica.pieces",
        "tetropica.hand_size",
        "move.piece",
        "move.not_held",
        "move.cells",
        "move.outside",
        "move.shape",
        "move.not_destructible",
        "move.not_adjacent",
    ];

    type Level = TetropicaLevel;
    type Params = TetropicaParams;
    type Solution = Vec<Placement>;
    type Metrics = TetropicaMetrics;
    type Moves = Vec<Placement>;
    type ReplayExtra = TetropicaReplay;
    type Play = play::TetropicaPlay;

    fn tier(difficulty: Difficulty) -> Tier<TetropicaParams> {
        generator::tier(difficulty)
    }

    fn generate(
        params: &TetropicaParams,
        rng: &mut LevelRng,
        limits: &Limits,
    ) -> Result<TetropicaLevel, Rejection> {
        generator::generate(params, rng, limits)
    }

    fn validate(level: &TetropicaLevel) -> Result<(), RuleError> {
        rules::validate(level)
    }

    fn analyze(
        level: &TetropicaLevel,
        limits: &Limits,
    ) -> Result<Analysis<Vec<Placement>, TetropicaMetrics>, Exhausted> {
        let board = Board::compile(level);
        let table = Table::build(&board);
        let solved = solver::solve(&board, &table, limits)?;
        let solution: Option<Vec<Placement>> = solved.play.map(|play| {
            play.iter()
                .map(|&i| to_placement(&board, &table.list[i as usize]))
                .collect()
        });
        Ok(Analysis {
            par: solution.as_ref().map(|s| s.len() as u32),
            solution,
            states: solved.states,
            solution_count: solved.count,
            extra: metrics(&board, &table, solved.min_pieces),
        })
    }

    fn accept(
        tier: &Tier<TetropicaParams>,
        analysis: &Analysis<Vec<Placement>, TetropicaMetrics>,
    ) -> Result<(), &'static str> {
        if analysis.extra.min_pieces != Some(analysis.extra.pieces) {
            return Err("sub-solution");
        }
        if tier.params.unique && analysis.solution_count != 1 {
            return Err("not unique");
        }
        Ok(())
    }

    fn replay(
        level: &TetropicaLevel,
        moves: &Vec<Placement>,
    ) -> Result<Replay<TetropicaReplay>, RuleError> {
        let board = Board::compile(level);
        let mut play = Play::start(&board);
        let mut won = board.joined(0);
        let mut used = 0;
        for (i, placement) in moves.iter().enumerate() {
            if won {
                break;
            }
            play.place(&board, placement, i)?;
            used += 1;
            won = board.joined(play.carved);
        }
        Ok(Replay {
            status: if won { Status::Won } else { Status::Unfinished },
            moves_used: used as u32,
            moves_ignored: (moves.len() - used) as u32,
            reason: None,
            extra: TetropicaReplay {
                pieces_left: play.hand.letters(),
            },
        })
    }

    const NAMES_CONFLICT: bool = true;

    /// The solver on the position as a level of its own. Every win of a served level
    /// needs its whole hand (`min_pieces == pieces`), so every win from a position
    /// reached on it needs the whole hand left, which is what the solver places.
    fn best_line(
        level: &TetropicaLevel,
        moves: &Vec<Placement>,
        limits: &Limits,
    ) -> Result<Option<Vec<Placement>>, HintError> {
        let board = Board::compile(level);
        let play = play_of(&board, moves)?;
        if board.joined(play.carved) {
            return Ok(Some(Vec::new()));
        }
        Ok(Self::analyze(&render(level, &board, &play), limits)?.solution)
    }

    fn position(
        level: &TetropicaLevel,
        moves: &Vec<Placement>,
    ) -> Result<Option<TetropicaLevel>, RuleError> {
        let board = Board::compile(level);
        let play = play_of(&board, moves)?;
        Ok((!board.joined(play.carved)).then(|| render(level, &board, &play)))
    }

    fn preview_svg(level: &TetropicaLevel, solution: Option<&Vec<Placement>>) -> String {
        preview::render(level, solution.map(Vec::as_slice))
    }

    /// The expert level with the most solver states among seeds 1..=100.
    fn bench_level() -> TetropicaLevel {
        crate::game::level_of_key::<Self>(Difficulty::Expert, 87)
    }
}

/// The carving and hand the placements leave, stopping at a win.
fn play_of(board: &Board, moves: &[Placement]) -> Result<Play, RuleError> {
    let mut play = Play::start(board);
    for (i, placement) in moves.iter().enumerate() {
        if board.joined(play.carved) {
            break;
        }
        play.place(board, placement, i)?;
    }
    Ok(play)
}

/// The level as the placements left it: carved tiles open, the pieces used gone.
fn render(level: &TetropicaLevel, board: &Board, play: &Play) -> TetropicaLevel {
    let grid = grid::cells(&level.grid)
        .map(|(x, y, c)| {
            if play.carved & board.bit(x, y) != 0 {
                '.'
            } else {
                c
            }
        })
        .collect::<Vec<char>>()
        .chunks(level.width)
        .map(String::from_iter)
        .collect();
    TetropicaLevel {
        grid,
        pieces: play.hand.letters(),
        ..level.clone()
    }
}

/// A solver placement in the JSON shape, cells in reading order.
fn to_placement(board: &Board, candidate: &Candidate) -> Placement {
    Placement {
        piece: letter_of(candidate.kind).to_string(),
        cells: bits(candidate.mask)
            .map(|cell| {
                let (x, y) = board.xy(cell);
                [x as i64, y as i64]
            })
            .collect(),
    }
}

fn metrics(board: &Board, table: &Table, min_pieces: Option<u32>) -> TetropicaMetrics {
    let start = board.start.trailing_zeros() as usize;
    let carve = carve_distance(board)[start];
    TetropicaMetrics {
        pieces: board.hand.total(),
        min_pieces,
        shortest_carve: (carve != u8::MAX).then_some(u32::from(carve)),
        tiles: board.tiles.count_ones(),
        rocks: board.rock.count_ones(),
        placements: table.list.len() as u32,
    }
}

#[cfg(test)]
mod tests;
