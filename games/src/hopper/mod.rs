//! `hopper` — hop a sequence that collects every star and ends on the goal stone.
//! Rules: games/src/hopper/README.md. Generator: the Hopper blog post's method #3 (a perfect path through random
//! waypoints), proved and measured by a breadth-first solver.

mod bounds;
mod generator;
mod play;
mod preview;
pub mod rules;
mod solver;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{
    Analysis, Difficulty, Dir, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier, moves_to_string, parse_moves,
};
use crate::rng::LevelRng;
use rules::{Board, Step, Tile, unpack};

pub use generator::HopperParams;

/// A hopper level in the JSON shape of games/src/hopper/README.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HopperLevel {
    /// Columns of the board (1 to 12; at most 96 cells in all).
    #[schemars(range(min = 1, max = 12))]
    pub width: usize,
    /// Rows of the board (1 to 12).
    #[schemars(range(min = 1, max = 12))]
    pub height: usize,
    /// One string per row, top first: `~` water, `.` grass, `:` dirt (crumbles once left),
    /// `^` `v` `<` `>` arrows, `S` the start, `G` the goal stone.
    #[schemars(
        length(min = 1, max = 12),
        inner(regex(pattern = r"^[~.:^v<>GS]{1,12}$"))
    )]
    pub grid: Vec<String>,
    /// Star cells as `[x, y]`, on grass or dirt (at most 16).
    #[serde(default)]
    #[schemars(length(max = 16))]
    pub stars: Vec<[usize; 2]>,
}

/// Hopper's own metrics.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct HopperMetrics {
    /// Stars to collect.
    pub stars: u32,
    /// Dirt cells `:`.
    pub dirt: u32,
    /// Arrow cells.
    pub arrows: u32,
    /// Grass cells, the start included.
    pub grass: u32,
}

/// What a replay collected and where it stopped.
#[derive(Serialize, JsonSchema)]
pub struct HopperReplay {
    /// Stars picked up so far.
    pub stars_collected: u32,
    /// Stars on the level.
    pub stars_total: u32,
    /// Where the hopper is: on the goal once it landed there, on its last cell after
    /// a hop that fell.
    pub at: [usize; 2],
}

pub struct Hopper;

/// Shortest perfect sequences are counted up to this many.
const SOLUTION_CAP: u64 = 1_000_000;

impl Puzzle for Hopper {
    const NAME: &'static str = "hopper";
    const TITLE: &'static str = "Hopper";
    const VERSION: u32 = 1;
    const SOLUTION_COUNT_CAP: u64 = SOLUTION_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] = &["stars", "arrows", "dirt", "grass"];
    const PALETTE: &'static [Piece] = &[
        Piece::new('~', "water"),
        Piece::new('.', "grass"),
        Piece::new(':', "dirt"),
        Piece::new('^', "arrow up"),
        Piece::new('v', "arrow down"),
        Piece::new('<', "arrow left"),
        Piece::new('>', "arrow right"),
        Piece::new('S', "start"),
        Piece::new('G', "goal"),
    ];
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "hopper.size",
        "hopper.start",
        "hopper.goal",
        "hopper.stars",
        "moves.letters",
    ];

    type Level = HopperLevel;
    type Params = HopperParams;
    type Solution = String;
    type Metrics = HopperMetrics;
    type Moves = String;
    type ReplayExtra = HopperReplay;
    type Play = play::HopperPlay;

    fn tier(difficulty: Difficulty) -> Tier<HopperParams> {
        generator::tier(difficulty)
    }

    fn generate(
        params: &HopperParams,
        rng: &mut LevelRng,
        _limits: &Limits,
    ) -> Result<HopperLevel, Rejection> {
        generator::generate(params, rng).map(|planned| planned.level)
    }

    fn validate(level: &HopperLevel) -> Result<(), RuleError> {
        rules::validate(level)
    }

    fn analyze(
        level: &HopperLevel,
        limits: &Limits,
    ) -> Result<Analysis<String, HopperMetrics>, Exhausted> {
        let board = Board::compile(level);
        let solved = solver::solve(&board, limits, SOLUTION_CAP)?;
        Ok(Analysis {
            par: solved.solution.as_ref().map(|s| s.len() as u32),
            solution: solved.solution.map(|s| moves_to_string(&s)),
            states: solved.expanded,
            solution_count: solved.count,
            extra: metrics(level, &board),
        })
    }

    fn replay(level: &HopperLevel, moves: &String) -> Result<Replay<HopperReplay>, RuleError> {
        let moves = parse_moves(moves)?;
        let board = Board::compile(level);
        let mut hopper = Hopping::new(&board);
        let mut used = 0;
        for &d in &moves {
            used += 1;
            if hopper.hop(d) {
                break;
            }
        }
        let (x, y) = board.xy(hopper.at);
        let (status, reason) = hopper.ended.unwrap_or((Status::Unfinished, None));
        Ok(Replay {
            status,
            moves_used: used,
            moves_ignored: moves.len() as u32 - used,
            reason,
            extra: HopperReplay {
                stars_collected: hopper.stars.count_ones(),
                stars_total: level.stars.len() as u32,
                at: [x, y],
            },
        })
    }

    fn best_line(
        level: &HopperLevel,
        moves: &String,
        limits: &Limits,
    ) -> Result<Option<String>, HintError> {
        let board = Board::compile(level);
        Ok(match reached(&board, &parse_moves(moves)?) {
            Reached::Won => Some(String::new()),
            Reached::Lost => None,
            Reached::Playing(state) => solver::solve_from(&board, state, limits, SOLUTION_CAP)?
                .solution
                .map(|line| moves_to_string(&line)),
        })
    }

    fn position(level: &HopperLevel, moves: &String) -> Result<Option<HopperLevel>, RuleError> {
        let board = Board::compile(level);
        Ok(match reached(&board, &parse_moves(moves)?) {
            Reached::Playing(state) => rules::render(level, &board, state),
            Reached::Won | Reached::Lost => None,
        })
    }

    fn preview_svg(level: &HopperLevel, solution: Option<&String>) -> String {
        preview::render(level, solution.map(String::as_str))
    }

    /// The expert level with the most solver states among seeds 1..=100.
    fn bench_level() -> HopperLevel {
        crate::game::level_of_key::<Self>(Difficulty::Expert, 29)
    }
}

/// Where some hops leave the hopper.
enum Reached {
    Playing(u128),
    Won,
    Lost,
}

fn reached(board: &Board, moves: &[Dir]) -> Reached {
    let mut state = board.start_state();
    for &d in moves {
        match board.step(state, d) {
            Step::To(next) => state = next,
            Step::Won => return Reached::Won,
            Step::GoalEarly(_) | Step::Fell => return Reached::Lost,
        }
    }
    Reached::Playing(state)
}

/// A replay in progress: the state, and how the sequence ended once it has.
struct Hopping<'a> {
    board: &'a Board,
    state: u128,
    at: usize,
    stars: u16,
    ended: Option<(Status, Option<String>)>,
}

impl<'a> Hopping<'a> {
    fn new(board: &'a Board) -> Self {
        Hopping {
            board,
            state: board.start_state(),
            at: board.start,
            stars: 0,
            ended: None,
        }
    }

    /// One hop; says whether it ended the sequence.
    fn hop(&mut self, d: Dir) -> bool {
        match self.board.step(self.state, d) {
            Step::To(next) => {
                self.state = next;
                (self.at, self.stars, _) = unpack(next);
                return false;
            }
            Step::Won => {
                self.at = self.board.goal;
                self.stars = self.board.all_stars;
                self.ended = Some((Status::Won, None));
            }
            Step::GoalEarly(collected) => {
                self.at = self.board.goal;
                self.stars = collected;
                let why = format!(
                    "landed on the goal with {} of {} stars: the sequence ended imperfect",
                    collected.count_ones(),
                    self.board.all_stars.count_ones()
                );
                self.ended = Some((Status::Lost, Some(why)));
            }
            Step::Fell => {
                let why = self.board.why_fell(self.state, d).describe().to_string();
                self.ended = Some((Status::Lost, Some(why)));
            }
        }
        true
    }
}

fn metrics(level: &HopperLevel, board: &Board) -> HopperMetrics {
    let count = |f: fn(&Tile) -> bool| board.tiles.iter().filter(|t| f(t)).count() as u32;
    HopperMetrics {
        stars: level.stars.len() as u32,
        dirt: count(|t| *t == Tile::Dirt),
        arrows: count(|t| matches!(t, Tile::Arrow(_))),
        grass: count(|t| *t == Tile::Grass),
    }
}

#[cfg(test)]
mod tests;
