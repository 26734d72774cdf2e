//! `template` — the smallest complete game, for a newcomer to copy: walk a maze one cell
//! per move from `@` to `*`. It compiles and is tested (its unit tests below and the
//! catalog's contract properties in games/tests/catalog.rs) but is not registered, so the
//! service never serves it. Adding a game from it: see the checklist in registry.rs.
//!
//! Rules: the board is a grid of `#` walls and `.` floor with one start `@` and one goal
//! `*`. A move (U, D, L, R) steps one cell; a step into a wall or off the board leaves
//! the walker where it is (the move still counts). Reaching `*` wins; the level is never
//! lost. `par` is the fewest moves from `@` to `*`.

mod play;

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{
    Analysis, Difficulty, Dir, Exhausted, HintError, Limits, Piece, Puzzle, Rejection, Replay,
    RuleError, Status, Tier, moves_to_string, parse_moves,
};
use crate::grid::{cells, check_shape};
use crate::rng::LevelRng;
use crate::svg::Svg;

/// A level in the JSON shape every game shares: width, height, grid rows. Its JSON Schema
/// (derived, with the bounds and descriptions below) is the game's part of openapi.yaml.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateLevel {
    /// Columns of the board (2 to 32).
    #[schemars(range(min = 2, max = 32))]
    pub width: usize,
    /// Rows of the board (1 to 32).
    #[schemars(range(min = 1, max = 32))]
    pub height: usize,
    /// One string per row, top first: `#` wall, `.` floor, `@` the start, `*` the goal.
    #[schemars(length(min = 1, max = 32), inner(regex(pattern = r"^[#.@*]{2,32}$")))]
    pub grid: Vec<String>,
}

/// The generator's knobs for one tier.
#[derive(Clone, Debug, Serialize)]
pub struct TemplateParams {
    pub size: usize,
    /// Chance, in percent, that an inner cell is a wall.
    pub wall_percent: u32,
}

/// The game's own metrics, flattened into the level's `metrics`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct TemplateMetrics {
    /// Wall cells `#`.
    pub walls: u32,
}

/// Extra fields of a replay outcome: where the walker stopped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TemplateReplay {
    /// The walker's cell `[x, y]`.
    pub at: [usize; 2],
}

pub struct Template;

const SOLUTION_CAP: u64 = 1_000_000;

impl Puzzle for Template {
    const NAME: &'static str = "template";
    const TITLE: &'static str = "Template";
    const VERSION: u32 = 1;
    const SOLUTION_COUNT_CAP: u64 = SOLUTION_CAP;
    const PRIOR: &'static str = include_str!("prior.json");
    const KEY_METRICS: &'static [&'static str] = &["walls"];
    const PALETTE: &'static [Piece] = &[
        Piece::new('.', "floor"),
        Piece::new('#', "wall"),
        Piece::new('@', "start"),
        Piece::new('*', "goal"),
    ];
    /// Every rule id `validate` and `replay` can name (a test compares it with the source).
    const RULES: &'static [&'static str] = &[
        "grid.height",
        "grid.width",
        "grid.cell",
        "grid.size",
        "template.start",
        "template.goal",
        "moves.letters",
    ];

    type Level = TemplateLevel;
    type Params = TemplateParams;
    type Solution = String;
    type Metrics = TemplateMetrics;
    /// U, D, L, R letters: for a `String` the trait's default schemas say so.
    type Moves = String;
    type ReplayExtra = TemplateReplay;
    type Play = play::TemplatePlay;

    fn tier(difficulty: Difficulty) -> Tier<TemplateParams> {
        let (size, par_min, par_max) = match difficulty {
            Difficulty::Easy => (5, 2, Some(4)),
            Difficulty::Medium => (7, 5, Some(8)),
            Difficulty::Hard => (9, 9, Some(13)),
            // `Custom` is never generated (`generate_level` refuses it); the match stays total.
            Difficulty::Expert | Difficulty::Custom => (11, 14, None),
        };
        Tier {
            params: TemplateParams {
                size,
                wall_percent: 30,
            },
            par_min,
            par_max,
            requires: Vec::new(),
            max_attempts: 2000,
            max_states: 10_000,
        }
    }

    fn generate(
        params: &TemplateParams,
        rng: &mut LevelRng,
        _limits: &Limits,
    ) -> Result<TemplateLevel, Rejection> {
        let size = params.size;
        let mut board = vec![vec!['#'; size]; size];
        let mut floor = Vec::new();
        for (y, row) in board.iter_mut().enumerate().take(size - 1).skip(1) {
            for (x, cell) in row.iter_mut().enumerate().take(size - 1).skip(1) {
                if !rng.chance(params.wall_percent, 100) {
                    *cell = '.';
                    floor.push((x, y));
                }
            }
        }
        if floor.len() < 2 {
            return Err(Rejection::Candidate("too few floor cells"));
        }
        rng.shuffle(&mut floor);
        let ((sx, sy), (gx, gy)) = (floor[0], floor[1]);
        board[sy][sx] = '@';
        board[gy][gx] = '*';
        Ok(TemplateLevel {
            width: size,
            height: size,
            grid: crate::grid::to_rows(&board),
        })
    }

    fn validate(level: &TemplateLevel) -> Result<(), RuleError> {
        check_shape(
            &level.grid,
            level.width,
            level.height,
            (2, 1),
            (32, 32),
            "#.@*",
        )?;
        for (mark, rule) in [('@', "template.start"), ('*', "template.goal")] {
            let count = cells(&level.grid).filter(|&(_, _, c)| c == mark).count();
            if count != 1 {
                return Err(RuleError::new(
                    rule,
                    format!("the grid has {count} `{mark}` cells; it needs exactly one"),
                ));
            }
        }
        Ok(())
    }

    fn analyze(
        level: &TemplateLevel,
        limits: &Limits,
    ) -> Result<Analysis<String, TemplateMetrics>, Exhausted> {
        let board = Board::new(level);
        let search = board.breadth_first(limits)?;
        let solution = search.path_to(board.goal);
        Ok(Analysis {
            par: solution.as_ref().map(|s| s.len() as u32),
            solution: solution.map(|s| moves_to_string(&s)),
            states: search.expanded,
            solution_count: search.ways[board.goal].min(SOLUTION_CAP),
            extra: TemplateMetrics {
                walls: cells(&level.grid).filter(|&(_, _, c)| c == '#').count() as u32,
            },
        })
    }

    fn replay(level: &TemplateLevel, moves: &String) -> Result<Replay<TemplateReplay>, RuleError> {
        let moves = parse_moves(moves)?;
        let board = Board::new(level);
        let mut at = board.start;
        let mut used = 0;
        for &dir in &moves {
            used += 1;
            at = board.step(at, dir).unwrap_or(at);
            if at == board.goal {
                break;
            }
        }
        let status = if at == board.goal {
            Status::Won
        } else {
            Status::Unfinished
        };
        Ok(Replay {
            status,
            moves_used: used,
            moves_ignored: moves.len() as u32 - used,
            reason: None,
            extra: TemplateReplay {
                at: [at % board.width, at / board.width],
            },
        })
    }

    /// The simplest exact way, fit for any game whose format can express every
    /// position: the solver on the position as a level of its own.
    fn best_line(
        level: &TemplateLevel,
        moves: &String,
        limits: &Limits,
    ) -> Result<Option<String>, HintError> {
        match Self::position(level, moves)? {
            None => Ok(Some(String::new())),
            Some(here) => Ok(Self::analyze(&here, limits)?.solution),
        }
    }

    /// The walker's cell becomes the start; `None` once it stands on the goal.
    fn position(level: &TemplateLevel, moves: &String) -> Result<Option<TemplateLevel>, RuleError> {
        let board = Board::new(level);
        let at = board.walk(&parse_moves(moves)?);
        if at == board.goal {
            return Ok(None);
        }
        let grid = cells(&level.grid)
            .map(|(x, y, c)| match c {
                _ if y * level.width + x == at => '@',
                '@' => '.',
                c => c,
            })
            .collect::<Vec<char>>()
            .chunks(level.width)
            .map(String::from_iter)
            .collect();
        Ok(Some(TemplateLevel {
            grid,
            ..level.clone()
        }))
    }

    fn preview_svg(level: &TemplateLevel, solution: Option<&String>) -> String {
        let mut svg = Svg::new(level.width, level.height, "#f4f1ea");
        for (x, y, c) in cells(&level.grid) {
            match c {
                '#' => svg.cell(x, y, 0, "#5b5347"),
                '@' => svg.disc(x, y, 14, "#3a7bd5", "#1d3f6e"),
                '*' => svg.label(x, y, "*", "#c0392b"),
                _ => &mut svg,
            };
        }
        let board = Board::new(level);
        let mut at = board.start;
        for dir in solution
            .map(|s| parse_moves(s).unwrap_or_default())
            .unwrap_or_default()
        {
            let Some(next) = board.step(at, dir) else {
                continue;
            };
            let xy = |i: usize| (i % board.width, i / board.width);
            svg.link(xy(at), xy(next), "#3a7bd5", 4);
            at = next;
        }
        svg.finish()
    }

    fn bench_level() -> TemplateLevel {
        crate::game::level_of_key::<Self>(Difficulty::Expert, 1)
    }
}

/// The grid as a flat array of open cells, indexed `y * width + x`.
struct Board {
    width: usize,
    open: Vec<bool>,
    start: usize,
    goal: usize,
}

/// A finished breadth-first search from the start.
struct Search {
    /// Per cell: the move that first reached it and the cell it came from.
    came_from: Vec<Option<(Dir, usize)>>,
    /// Per cell: the number of shortest paths to it (saturating).
    ways: Vec<u64>,
    expanded: u64,
}

impl Board {
    /// Only for valid levels.
    fn new(level: &TemplateLevel) -> Board {
        let mut board = Board {
            width: level.width,
            open: Vec::with_capacity(level.width * level.height),
            start: 0,
            goal: 0,
        };
        for (x, y, c) in cells(&level.grid) {
            let index = y * level.width + x;
            match c {
                '@' => board.start = index,
                '*' => board.goal = index,
                _ => {}
            }
            board.open.push(c != '#');
        }
        board
    }

    /// Where the walker stands after `moves`, stopping on the goal.
    fn walk(&self, moves: &[Dir]) -> usize {
        let mut at = self.start;
        for &dir in moves {
            if at == self.goal {
                break;
            }
            at = self.step(at, dir).unwrap_or(at);
        }
        at
    }

    /// The cell one step from `at`, if it is open and on the board.
    fn step(&self, at: usize, dir: Dir) -> Option<usize> {
        let (x, y) = ((at % self.width) as i64, (at / self.width) as i64);
        let (dx, dy) = dir.delta();
        let (nx, ny) = (x + i64::from(dx), y + i64::from(dy));
        let height = (self.open.len() / self.width) as i64;
        if nx < 0 || ny < 0 || nx >= self.width as i64 || ny >= height {
            return None;
        }
        let next = ny as usize * self.width + nx as usize;
        self.open[next].then_some(next)
    }

    fn breadth_first(&self, limits: &Limits) -> Result<Search, Exhausted> {
        let cells = self.open.len();
        let mut distance = vec![u32::MAX; cells];
        let mut search = Search {
            came_from: vec![None; cells],
            ways: vec![0; cells],
            expanded: 0,
        };
        distance[self.start] = 0;
        search.ways[self.start] = 1;
        let mut queue = VecDeque::from([self.start]);
        while let Some(at) = queue.pop_front() {
            search.expanded += 1;
            limits.tick(search.expanded)?;
            for dir in Dir::ALL {
                let Some(next) = self.step(at, dir) else {
                    continue;
                };
                if distance[next] == u32::MAX {
                    distance[next] = distance[at] + 1;
                    search.came_from[next] = Some((dir, at));
                    queue.push_back(next);
                }
                if distance[next] == distance[at] + 1 {
                    search.ways[next] = search.ways[next].saturating_add(search.ways[at]);
                }
            }
        }
        Ok(search)
    }
}

impl Search {
    /// The first shortest path found to `goal` (directions tried in `Dir::ALL` order).
    fn path_to(&self, goal: usize) -> Option<Vec<Dir>> {
        let mut path = Vec::new();
        let mut at = goal;
        while self.ways[at] > 0 {
            let Some((dir, from)) = self.came_from[at] else {
                path.reverse();
                return Some(path);
            };
            path.push(dir);
            at = from;
        }
        None
    }
}

#[cfg(test)]
mod tests;
