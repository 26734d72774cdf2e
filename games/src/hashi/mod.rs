//! `hashi` — Hashi Flow: fill the board with links between numbered nodes.
//! Rules: games/src/hashi/README.md. Generator: Pudding Entertainment's node-by-node growth, kept only when the
//! exact solver proves exactly one solution (with edits where a second one diverges).

mod generator;
mod play;
mod preview;
pub mod rules;
pub mod solver;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::core::{
    Analysis, Difficulty, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier,
};
use crate::rng::LevelRng;
use rules::{Board, Drawing, LinkPoints, Verdict};
use solver::Technique;

pub use generator::HashiParams;

/// A Hashi Flow level in the JSON shape of games/src/hashi/README.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HashiLevel {
    /// Columns of the square board (4 to 9).
    #[schemars(range(min = 4, max = 9))]
    pub width: usize,
    /// Rows of the square board, equal to `width`.
    #[schemars(range(min = 4, max = 9))]
    pub height: usize,
    /// One string per row, top first: `.` empty cell, `1`-`4` a node needing that many links.
    #[schemars(length(min = 4, max = 9), inner(regex(pattern = r"^[.1-4]{4,9}$")))]
    pub grid: Vec<String>,
}

/// A solution: its links, each `[[ax,ay],[x1,y1],...,[bx,by]]` with the nodes at the ends.
pub type HashiSolution = Vec<Vec<[usize; 2]>>;

/// Moves: links in the solution's format (signed, so that a point off the board is a
/// rule error rather than unreadable JSON).
pub type HashiMoves = Vec<LinkPoints>;

/// Hashi's own metrics: the board, and how hard the solver had to work for it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct HashiMetrics {
    /// Board side.
    pub size: u32,
    /// Numbered cells.
    pub nodes: u32,
    /// Cells without a number.
    pub empty_cells: u32,
    /// Empty cells per mille of the board (the article kept 625..750).
    pub free_permille: u32,
    /// Search nodes at which propagation alone could not go on (the difficulty signal
    /// beyond size: 0 means the level solves by forced steps alone).
    pub guesses: u64,
    /// The deepest nesting of guesses.
    pub depth: u32,
    /// Steps of the solution forced before the first guess, per mille.
    pub forced_permille: u32,
    /// Rounds of deduction before the first guess, each needing the one before.
    pub waves: u32,
    /// The weakest reasoning that solves the level without guessing: `degrees`,
    /// `chains` (degrees plus no loops, no link back to its own node) or `search`.
    pub technique: Technique,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HashiReplay {
    /// Empty cells on no link yet.
    pub cells_left: u32,
    /// Nodes that still miss links.
    pub nodes_unmet: u32,
}

pub struct Hashi;

/// Links as arrays of `[x, y]` points; the aliases above carry no description of their own.
fn links_schema(coordinate: Schema, description: &str) -> Schema {
    json_schema!({
        "type": "array",
        "description": description,
        "items": {
            "type": "array",
            "minItems": 3,
            "items": {"type": "array", "items": coordinate, "minItems": 2, "maxItems": 2},
        },
    })
}

/// Solutions are counted up to 2: enough to prove a level unique.
pub(crate) const SOLUTION_CAP: u64 = 2;

impl Puzzle for Hashi {
    const NAME: &'static str = "hashi";
    const TITLE: &'static str = "Hashi Flow";
    const VERSION: u32 = 2;
    const SOLUTION_COUNT_CAP: u64 = SOLUTION_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] =
        &["nodes", "guesses", "depth", "forced_permille", "waves"];
    const PALETTE: &'static [Piece] = &[
        Piece::new('.', "empty"),
        Piece::new('1', "node 1"),
        Piece::new('2', "node 2"),
        Piece::new('3', "node 3"),
        Piece::new('4', "node 4"),
    ];
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "hashi.square",
        "hashi.node_sides",
        "hashi.link_length",
        "hashi.link_outside",
        "hashi.link_ends",
        "hashi.link_same_node",
        "hashi.link_cells",
        "hashi.link_revisit",
        "hashi.link_step",
    ];

    type Level = HashiLevel;
    type Params = HashiParams;
    type Solution = HashiSolution;
    type Metrics = HashiMetrics;
    type Moves = HashiMoves;
    type ReplayExtra = HashiReplay;
    type Play = play::HashiPlay;

    fn moves_schema(generator: &mut SchemaGenerator) -> Schema {
        links_schema(
            generator.subschema_for::<i64>(),
            "Links in the order drawn, each the points `[x, y]` from one node through \
             empty cells to another node.",
        )
    }

    fn solution_schema(generator: &mut SchemaGenerator) -> Schema {
        links_schema(
            generator.subschema_for::<usize>(),
            "The links of the unique solution, each the points `[x, y]` from one node \
             through empty cells to another node.",
        )
    }

    fn tier(difficulty: Difficulty) -> Tier<HashiParams> {
        generator::tier(difficulty)
    }

    fn generate(
        params: &HashiParams,
        rng: &mut LevelRng,
        limits: &Limits,
    ) -> Result<HashiLevel, Rejection> {
        generator::generate(params, rng, limits)
    }

    fn validate(level: &HashiLevel) -> Result<(), RuleError> {
        rules::validate(level)
    }

    fn analyze(
        level: &HashiLevel,
        limits: &Limits,
    ) -> Result<Analysis<HashiSolution, HashiMetrics>, Exhausted> {
        let board = Board::parse(level);
        let search = solver::solve(&board, SOLUTION_CAP, 1, limits)?;
        let solution: Option<HashiSolution> = search.found.first().map(|steps| {
            solver::links_of(&board, steps)
                .iter()
                .map(|link| {
                    link.iter()
                        .map(|&c| {
                            let (x, y) = board.xy(c);
                            [x, y]
                        })
                        .collect()
                })
                .collect()
        });
        let cells = board.cells() as u32;
        let empty = board.empty_cells() as u32;
        Ok(Analysis {
            par: solution.as_ref().map(|s| s.len() as u32),
            solution,
            states: search.states,
            solution_count: search.count,
            extra: HashiMetrics {
                size: board.n as u32,
                nodes: cells - empty,
                empty_cells: empty,
                free_permille: empty * 1000 / cells,
                guesses: search.guesses,
                depth: search.depth,
                forced_permille: search.forced_permille,
                waves: search.waves,
                technique: solver::technique(&board),
            },
        })
    }

    fn accept(
        tier: &Tier<HashiParams>,
        analysis: &Analysis<HashiSolution, HashiMetrics>,
    ) -> Result<(), &'static str> {
        if analysis.solution_count != 1 {
            return Err("not unique");
        }
        if analysis.extra.size != tier.params.size {
            return Err("board size");
        }
        let (least, most) = tier.params.technique;
        if !(least..=most).contains(&analysis.extra.technique) {
            return Err("reasoning outside the tier's range");
        }
        let (fewest, most) = tier.params.guesses;
        if analysis.extra.guesses < fewest || most.is_some_and(|m| analysis.extra.guesses > m) {
            return Err("guesses outside the tier's range");
        }
        Ok(())
    }

    /// Draws the links in order. A move that is not a link by itself (ends that are not
    /// two different nodes, a step that is not to a neighbour, a point off the board, a
    /// node or a cell twice inside it) is a malformed move list: a `RuleError`. A link
    /// that conflicts with the ones before it (a cell already covered, a node over its
    /// number) loses, and so does a board on which no further link can be drawn (every
    /// cell covered or every node full) that breaks a rule: a cell on no link, a node
    /// short of links, or a network in more than one piece. `moves_used` counts links.
    fn replay(level: &HashiLevel, moves: &HashiMoves) -> Result<Replay<HashiReplay>, RuleError> {
        let board = Board::parse(level);
        let links = moves
            .iter()
            .enumerate()
            .map(|(i, link)| rules::link_cells(&board, i, link))
            .collect::<Result<Vec<_>, _>>()?;
        let mut drawing = Drawing::new(&board);
        let (mut status, mut reason, mut used) = (Status::Unfinished, None, 0);
        for link in &links {
            used += 1;
            match drawing.add(link) {
                Verdict::Open => {}
                Verdict::Won => {
                    status = Status::Won;
                    break;
                }
                Verdict::Lost(why) => {
                    status = Status::Lost;
                    reason = Some(why);
                    break;
                }
            }
        }
        Ok(Replay {
            status,
            moves_used: used,
            moves_ignored: links.len() as u32 - used,
            reason,
            extra: HashiReplay {
                cells_left: drawing.cells_left() as u32,
                nodes_unmet: drawing.nodes_unmet() as u32,
            },
        })
    }

    const NAMES_CONFLICT: bool = true;

    /// From the proven solution: a served level has exactly one, so the links drawn can
    /// still win exactly when each is a link of it (either way round) and none is drawn
    /// twice; the line is then its links not yet drawn, in the solution's order.
    fn best_line(
        level: &HashiLevel,
        moves: &HashiMoves,
        limits: &Limits,
    ) -> Result<Option<HashiMoves>, HintError> {
        match Self::replay(level, moves)?.status {
            Status::Won => return Ok(Some(Vec::new())),
            Status::Lost => return Ok(None),
            Status::Unfinished => {}
        }
        let analysis = Self::analyze(level, limits)?;
        let Some(solution) = analysis.solution.filter(|_| analysis.solution_count == 1) else {
            return Err(HintError::NotUnique);
        };
        let mut left: Vec<LinkPoints> = solution
            .iter()
            .map(|link| link.iter().map(|&[x, y]| [x as i64, y as i64]).collect())
            .collect();
        for drawn in moves {
            let reversed: LinkPoints = drawn.iter().rev().copied().collect();
            match left.iter().position(|l| l == drawn || *l == reversed) {
                Some(i) => left.remove(i),
                None => return Ok(None),
            };
        }
        Ok(Some(left))
    }

    /// The format has no way to draw links, so no position but the start is a level.
    fn position(level: &HashiLevel, moves: &HashiMoves) -> Result<Option<HashiLevel>, RuleError> {
        let replay = Self::replay(level, moves)?;
        Ok((replay.status == Status::Unfinished && replay.moves_used == 0).then(|| level.clone()))
    }

    fn preview_svg(level: &HashiLevel, solution: Option<&HashiSolution>) -> String {
        preview::render(level, solution)
    }

    /// Version 1's expert level of seed 63, the one with the most solver states among
    /// seeds 1..=100, kept as a document so that no version bump changes what the
    /// benchmarks measure.
    fn bench_level() -> HashiLevel {
        serde_json::from_str(include_str!("bench_level.json")).expect("the bench level parses")
    }
}

#[cfg(test)]
mod tests;
