//! `skiddy` — Skiddy, the slippery puzzle: tilt the creatures home, with crates, ice and
//! pits. Rules: games/src/skiddy/README.md. Every served level passes the designers' three rules of
//! correctness (no dead ends; the combo earns par; breakable where a colour has two or
//! more skiddies), proved over the complete reachable state graph.

mod generator;
#[cfg(target_arch = "x86_64")]
mod lines;
mod play;
mod preview;
pub mod rules;
pub mod solver;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize, Serializer};

use crate::core::{
    Analysis, Difficulty, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier, moves_to_string, parse_moves,
};
use crate::grid;
use crate::rng::LevelRng;
use rules::{Board, COLOURS};

pub use generator::SkiddyParams;

/// A skiddy level in the JSON shape of games/src/skiddy/README.md: the grid says everything.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkiddyLevel {
    /// Columns of the board (5 to 8).
    #[schemars(range(min = 5, max = 8))]
    pub width: usize,
    /// Rows of the board (4 to 7).
    #[schemars(range(min = 4, max = 7))]
    pub height: usize,
    /// One string per row, top first: `#` block, `.` floor, `O` pit, `r` `y` `b` `g`
    /// skiddies, `R` `Y` `B` `G` their goals (on the border), `c` crate, `i` ice.
    #[schemars(
        length(min = 4, max = 7),
        inner(regex(pattern = r"^[#.ORYBGrybgci]{5,8}$"))
    )]
    pub grid: Vec<String>,
}

/// A count that may outgrow `u64`: a JSON number when it fits in `u64` (every level the
/// generator serves), otherwise its exact decimal digits as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BigCount(pub u128);

impl Serialize for BigCount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match u64::try_from(self.0) {
            Ok(n) => serializer.serialize_u64(n),
            Err(_) => serializer.collect_str(&self.0),
        }
    }
}

impl JsonSchema for BigCount {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BigCount".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A count: a number up to 2^64-1, beyond that its decimal digits.",
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": u64::MAX},
                {"type": "string", "pattern": "^[0-9]{20,}$"},
            ],
        })
    }
}

/// Skiddy's own figures (games/src/skiddy/README.md, Metrics).
#[derive(Clone, Debug, Serialize, PartialEq, Eq, JsonSchema)]
pub struct SkiddyMetrics {
    /// Reachable non-winning states from which no win is reachable.
    pub dead_ends: u64,
    /// Baldiraghi's count of distinguishable placements (see [`solver::potential_states`]).
    pub potential_states: BigCount,
    /// Reachable non-winning states.
    pub real_states: u64,
    /// Fewest moves to win clearing every colour in a single move; `null` if impossible.
    pub combo_par: Option<u32>,
    /// `combo_par == par`: a par-long solution can earn the combo.
    pub perfect: bool,
    /// A win exists in which some colour is not cleared in a single move.
    pub breakable: bool,
    /// Skiddies on the board.
    pub skiddies: u32,
    /// Colours among the skiddies.
    pub colours: u32,
    /// Crates `c`.
    pub crates: u32,
    /// Ice cubes `i`.
    pub ice: u32,
    /// Pits `O`.
    pub pits: u32,
    /// Non-block cells inside the border.
    pub free_cells: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct SkiddyReplay {
    /// Skiddies not yet home.
    pub skiddies_left: u32,
    /// No colour so far had only part of its skiddies exit in one move.
    pub combo: bool,
}

pub struct Skiddy;

/// Optimal solutions are counted up to this many.
const SOLUTION_CAP: u64 = 1_000_000;

/// The benchmark level, of the largest kind in Baldiraghi's article: four reds, four yellows, a crate
/// and an ice cube over 24 free cells (potential states 21,513,083,856, like theirs);
/// 1,159,415 reachable non-winning states (theirs had 1,267,486).
pub const BIG_LEVEL: [&str; 7] = [
    "########", "#..r.#.#", "Y..y.y##", "#.i#.yr#", "#r.##rc#", "#y.#...R", "########",
];

impl Puzzle for Skiddy {
    const NAME: &'static str = "skiddy";
    const TITLE: &'static str = "Skiddy";
    const VERSION: u32 = 1;
    const SOLUTION_COUNT_CAP: u64 = SOLUTION_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] = &[
        "dead_ends",
        "real_states",
        "combo_par",
        "perfect",
        "breakable",
        "skiddies",
        "colours",
    ];
    const PALETTE: &'static [Piece] = &[
        Piece::new('.', "floor"),
        Piece::new('#', "block"),
        Piece::new('O', "pit"),
        Piece::new('R', "red goal"),
        Piece::new('Y', "yellow goal"),
        Piece::new('B', "blue goal"),
        Piece::new('G', "green goal"),
        Piece::new('r', "red skiddy"),
        Piece::new('y', "yellow skiddy"),
        Piece::new('b', "blue skiddy"),
        Piece::new('g', "green skiddy"),
        Piece::new('c', "crate"),
        Piece::new('i', "ice cube"),
    ];
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "skiddy.border",
        "skiddy.goal",
        "skiddy.skiddies",
        "moves.letters",
    ];
    const MEDALS: &'static [&'static str] = &["par", "combo", "perfect"];

    type Level = SkiddyLevel;
    type Params = SkiddyParams;
    type Solution = String;
    type Metrics = SkiddyMetrics;
    type Moves = String;
    type ReplayExtra = SkiddyReplay;
    type Play = play::SkiddyPlay;

    fn tier(difficulty: Difficulty) -> Tier<SkiddyParams> {
        generator::tier(difficulty)
    }

    fn generate(
        params: &SkiddyParams,
        rng: &mut LevelRng,
        limits: &Limits,
    ) -> Result<SkiddyLevel, Rejection> {
        generator::generate(params, rng, limits)
    }

    fn validate(level: &SkiddyLevel) -> Result<(), RuleError> {
        rules::validate(level)
    }

    fn analyze(
        level: &SkiddyLevel,
        limits: &Limits,
    ) -> Result<Analysis<String, SkiddyMetrics>, Exhausted> {
        let (board, start) = Board::compile(level);
        let findings = solver::explore(&board, start, limits)?.findings(SOLUTION_CAP);
        Ok(Analysis {
            par: findings.par,
            solution: findings.solution.as_deref().map(moves_to_string),
            states: findings.expanded,
            solution_count: findings.solution_count,
            extra: metrics(level, &findings),
        })
    }

    fn accept(
        _tier: &Tier<SkiddyParams>,
        analysis: &Analysis<String, SkiddyMetrics>,
    ) -> Result<(), &'static str> {
        fairness(analysis.par, &analysis.extra)
    }

    fn replay(level: &SkiddyLevel, moves: &String) -> Result<Replay<SkiddyReplay>, RuleError> {
        let moves = parse_moves(moves)?;
        let (board, mut state) = Board::compile(level);
        let full = solver::colour_counts(state);
        let mut combo = true;
        let mut status = Status::Unfinished;
        let mut used = 0;
        for &dir in &moves {
            used += 1;
            let next = board.tilt_ticks(state, dir);
            let (before, after) = (solver::colour_counts(state), solver::colour_counts(next));
            // A colour keeps its combo only if its first exits take all of it at once.
            combo &= (0..COLOURS)
                .all(|c| after[c] == before[c] || (after[c] == 0 && before[c] == full[c]));
            state = next;
            if Board::is_win(state) {
                status = Status::Won;
                break;
            }
        }
        Ok(Replay {
            status,
            moves_used: used,
            moves_ignored: moves.len() as u32 - used,
            reason: None,
            extra: SkiddyReplay {
                skiddies_left: state.skiddies().count_ones(),
                combo,
            },
        })
    }

    fn best_line(
        level: &SkiddyLevel,
        moves: &String,
        limits: &Limits,
    ) -> Result<Option<String>, HintError> {
        let (board, start) = Board::compile(level);
        let state = state_after(&board, start, &parse_moves(moves)?);
        let findings = solver::explore(&board, state, limits)?.findings(SOLUTION_CAP);
        Ok(findings.solution.as_deref().map(moves_to_string))
    }

    fn position(level: &SkiddyLevel, moves: &String) -> Result<Option<SkiddyLevel>, RuleError> {
        let (board, start) = Board::compile(level);
        let state = state_after(&board, start, &parse_moves(moves)?);
        Ok(if Board::is_win(state) {
            None
        } else {
            rules::render(level, &board, state)
        })
    }

    fn medals(par: u32, replay: &Replay<SkiddyReplay>) -> Vec<&'static str> {
        if replay.status != Status::Won {
            return Vec::new();
        }
        let on_par = replay.won_within(par);
        let combo = replay.extra.combo;
        let mut medals = Vec::new();
        if on_par {
            medals.push("par");
        }
        if combo {
            medals.push("combo");
        }
        if on_par && combo {
            medals.push("perfect");
        }
        medals
    }

    fn preview_svg(level: &SkiddyLevel, solution: Option<&String>) -> String {
        preview::render(level, solution.map(String::as_str))
    }

    fn bench_level() -> SkiddyLevel {
        SkiddyLevel {
            width: BIG_LEVEL[0].len(),
            height: BIG_LEVEL.len(),
            grid: BIG_LEVEL.iter().map(|row| row.to_string()).collect(),
        }
    }
}

/// The designers' three rules of correctness (games/src/skiddy/README.md).
/// The position `moves` reach from `state`, stopping at a win (skiddy has no loss).
fn state_after(board: &Board, mut state: rules::State, moves: &[crate::core::Dir]) -> rules::State {
    for &dir in moves {
        if Board::is_win(state) {
            break;
        }
        state = board.tilt(state, dir);
    }
    state
}

fn fairness(par: Option<u32>, metrics: &SkiddyMetrics) -> Result<(), &'static str> {
    if metrics.dead_ends > 0 {
        return Err("dead ends");
    }
    if metrics.combo_par != par {
        return Err("combo longer than par");
    }
    // More skiddies than colours: some colour has two or more.
    if metrics.skiddies > metrics.colours && !metrics.breakable {
        return Err("not breakable");
    }
    Ok(())
}

fn metrics(level: &SkiddyLevel, findings: &solver::Findings) -> SkiddyMetrics {
    let count = |c: char| grid::cells(&level.grid).filter(|&(_, _, g)| g == c).count() as u32;
    let per_colour: Vec<u32> = rules::SKIDDY_LETTERS.iter().map(|&l| count(l)).collect();
    let (board, _) = Board::compile(level);
    let free_cells = board.free.count_ones();
    let (crates, ice) = (count('c'), count('i'));
    SkiddyMetrics {
        dead_ends: findings.dead_ends,
        potential_states: BigCount(solver::potential_states(
            free_cells,
            &per_colour,
            crates,
            ice,
        )),
        real_states: findings.real_states,
        combo_par: findings.combo_par,
        perfect: findings.par.is_some() && findings.combo_par == findings.par,
        breakable: findings.breakable,
        skiddies: per_colour.iter().sum(),
        colours: per_colour.iter().filter(|&&n| n > 0).count() as u32,
        crates,
        ice,
        pits: count('O'),
        free_cells,
    }
}

#[cfg(test)]
mod tests;
