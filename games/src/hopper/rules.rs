//! Hopper rules (rules.md §5), compiled for a fast solver.
//!
//! A state packs into one `u128`: bits 0..96 are the dirt cells already turned to water
//! (cell `y * width + x`), bits 96..112 the stars collected (bit `i` is `stars[i]`), and
//! bits 112..119 the hopper's cell. Arrows never change, so every hop's landing cell is
//! precomputed per cell and direction; only the dirt that has gone is checked per state.

use crate::core::{Dir, RuleError};
use crate::grid;

use super::HopperLevel;

/// Boards hold at most this many cells (the dirt mask of a state).
pub const MAX_CELLS: usize = 96;
/// Longest side of a board.
pub const MAX_SIDE: usize = 12;
/// Stars a level may carry (the star mask of a state).
pub const MAX_STARS: usize = 16;
const STAR_SHIFT: u32 = 96;
const POS_SHIFT: u32 = 112;
/// `land` entries at or above this value are falls, not cells.
const FELL: u8 = u8::MAX;

/// What a cell is, for ever (dirt turning to water is state, not tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    Water,
    Grass,
    Dirt,
    Arrow(Dir),
    Goal,
}

impl Tile {
    /// The tile under a grid character (`S` is grass).
    pub fn from_char(c: char) -> Tile {
        match c {
            '.' | 'S' => Tile::Grass,
            ':' => Tile::Dirt,
            '^' => Tile::Arrow(Dir::U),
            'v' => Tile::Arrow(Dir::D),
            '<' => Tile::Arrow(Dir::L),
            '>' => Tile::Arrow(Dir::R),
            'G' => Tile::Goal,
            _ => Tile::Water,
        }
    }

    pub fn arrow_char(d: Dir) -> char {
        match d {
            Dir::U => '^',
            Dir::D => 'v',
            Dir::L => '<',
            Dir::R => '>',
        }
    }
}

/// Why a hop failed the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fall {
    /// Off the grid; `slid` when an arrow carried the hopper there.
    OffGrid { slid: bool },
    /// Into water (dirt that has gone included); `slid` as above.
    Water { slid: bool },
    /// A chain of arrows that never ends.
    Loop,
}

impl Fall {
    pub fn describe(self) -> &'static str {
        match self {
            Fall::OffGrid { slid: false } => "hopped off the grid",
            Fall::OffGrid { slid: true } => "an arrow slid the hopper off the grid",
            Fall::Water { slid: false } => "hopped into water",
            Fall::Water { slid: true } => "an arrow slid the hopper into water",
            Fall::Loop => "the arrows slide the hopper round in a loop for ever",
        }
    }
}

/// The static cells a hop passes through, before dirt that has gone is considered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Every cell landed on, arrows included, in order (the last one is where it ends).
    pub cells: Vec<usize>,
    /// The cell the hop ends on, or why it fails whatever the state.
    pub end: Result<usize, Fall>,
}

/// What one hop did to a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Landed on grass or dirt: the new state.
    To(u128),
    /// Landed on the goal with every star: a perfect sequence.
    Won,
    /// Landed on the goal with stars missing (the mask collected): the sequence ends.
    GoalEarly(u16),
    /// Fell off the grid, into water, or into an arrow loop.
    Fell,
}

/// A validated level compiled for hopping.
#[derive(Clone, Debug)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    pub tiles: Vec<Tile>,
    pub start: usize,
    pub goal: usize,
    /// The star bit of each cell (0 where there is no star).
    pub star_bit: Vec<u16>,
    pub all_stars: u16,
    /// Dirt cells as a mask over cell indices.
    pub dirt: u128,
    /// Per direction and cell: where the hop ends on static tiles, or `FELL`.
    land: [Vec<u8>; 4],
    /// The star cells, in star-bit order.
    pub star_cells: Vec<usize>,
}

impl Board {
    /// Compiles a level that passed [`validate`].
    pub fn compile(level: &HopperLevel) -> Board {
        let (width, height) = (level.width, level.height);
        let mut tiles = Vec::with_capacity(width * height);
        let (mut start, mut goal, mut dirt) = (0, 0, 0u128);
        for (x, y, c) in grid::cells(&level.grid) {
            let cell = y * width + x;
            match c {
                'S' => start = cell,
                'G' => goal = cell,
                ':' => dirt |= 1 << cell,
                _ => {}
            }
            tiles.push(Tile::from_char(c));
        }
        let mut star_bit = vec![0u16; tiles.len()];
        for (i, &[x, y]) in level.stars.iter().enumerate() {
            star_bit[y * width + x] = 1 << i;
        }
        let mut board = Board {
            width,
            height,
            tiles,
            start,
            goal,
            star_bit,
            all_stars: ((1u32 << level.stars.len()) - 1) as u16,
            dirt,
            land: Default::default(),
            star_cells: level.stars.iter().map(|&[x, y]| y * width + x).collect(),
        };
        board.land = Dir::ALL.map(|d| {
            (0..board.tiles.len())
                .map(|cell| match board.trace(cell, d).end {
                    Ok(to) => to as u8,
                    Err(_) => FELL,
                })
                .collect()
        });
        board
    }

    pub fn cells(&self) -> usize {
        self.tiles.len()
    }

    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.width, cell / self.width)
    }

    /// The neighbouring cell in direction `d`, `None` off the grid.
    pub fn neighbour(&self, cell: usize, d: Dir) -> Option<usize> {
        let (x, y) = self.xy(cell);
        let (dx, dy) = d.delta();
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        (nx >= 0 && ny >= 0 && (nx as usize) < self.width && (ny as usize) < self.height)
            .then(|| ny as usize * self.width + nx as usize)
    }

    /// The hop from `from` in direction `d` over the static tiles: one cell, then one
    /// more per arrow landed on. More slides than there are cells means a loop.
    pub fn trace(&self, from: usize, d: Dir) -> Trace {
        let mut cells = Vec::new();
        let mut at = from;
        let mut dir = d;
        loop {
            let Some(next) = self.neighbour(at, dir) else {
                let slid = !cells.is_empty();
                return Trace {
                    cells,
                    end: Err(Fall::OffGrid { slid }),
                };
            };
            let slid = !cells.is_empty();
            cells.push(next);
            match self.tiles[next] {
                Tile::Water => {
                    return Trace {
                        cells,
                        end: Err(Fall::Water { slid }),
                    };
                }
                Tile::Arrow(_) if cells.len() > self.cells() => {
                    return Trace {
                        cells,
                        end: Err(Fall::Loop),
                    };
                }
                Tile::Arrow(a) => {
                    at = next;
                    dir = a;
                }
                Tile::Grass | Tile::Dirt | Tile::Goal => {
                    return Trace {
                        cells,
                        end: Ok(next),
                    };
                }
            }
        }
    }

    /// Where a hop from `cell` in direction `d` ends on the static tiles (`None`: it
    /// fails whatever the state).
    #[inline]
    pub fn landing(&self, cell: usize, d: Dir) -> Option<usize> {
        match self.land[d.index()][cell] {
            FELL => None,
            to => Some(usize::from(to)),
        }
    }

    pub fn start_state(&self) -> u128 {
        pack(self.start, self.star_bit[self.start], 0)
    }

    /// One hop of the state in direction `d` (the solver's hot path).
    #[inline]
    pub fn step(&self, state: u128, d: Dir) -> Step {
        let (pos, stars, gone) = unpack(state);
        let to = self.land[d.index()][pos];
        if to == FELL {
            return Step::Fell;
        }
        let to = to as usize;
        // Leaving dirt turns it into water, even if a slide brings the hopper back.
        let gone = gone | (self.dirt & (1 << pos));
        if gone & (1 << to) != 0 {
            return Step::Fell;
        }
        let stars = stars | self.star_bit[to];
        if to == self.goal {
            return if stars == self.all_stars {
                Step::Won
            } else {
                Step::GoalEarly(stars)
            };
        }
        Step::To(pack(to, stars, gone))
    }

    /// Why a hop that [`Board::step`] calls `Fell` failed.
    pub fn why_fell(&self, state: u128, d: Dir) -> Fall {
        let (pos, _, _) = unpack(state);
        let trace = self.trace(pos, d);
        match trace.end {
            Err(fall) => fall,
            // The static tiles allow the landing, so it is dirt that has gone.
            Ok(_) => Fall::Water {
                slid: trace.cells.len() > 1,
            },
        }
    }
}

#[inline]
pub fn pack(pos: usize, stars: u16, gone: u128) -> u128 {
    gone | (u128::from(stars) << STAR_SHIFT) | ((pos as u128) << POS_SHIFT)
}

/// The hopper's cell, the stars collected and the dirt gone.
#[inline]
pub fn unpack(state: u128) -> (usize, u16, u128) {
    let pos = (state >> POS_SHIFT) as usize & 0x7f;
    let stars = (state >> STAR_SHIFT) as u16;
    let gone = state & ((1u128 << STAR_SHIFT) - 1);
    (pos, stars, gone)
}

/// Checks every rule of the hopper level format.
pub fn validate(level: &HopperLevel) -> Result<(), RuleError> {
    let (w, h) = (level.width, level.height);
    grid::check_shape(&level.grid, w, h, (1, 1), (MAX_SIDE, MAX_SIDE), "~.:^v<>GS")?;
    if w * h > MAX_CELLS || w * h < 2 {
        return Err(RuleError::new(
            "hopper.size",
            format!(
                "the board has {} cells; it must have from 2 to {MAX_CELLS}",
                w * h
            ),
        ));
    }
    exactly_one(level, 'S', "hopper.start", "start `S`")?;
    exactly_one(level, 'G', "hopper.goal", "goal stone `G`")?;
    check_stars(level)
}

fn exactly_one(
    level: &HopperLevel,
    c: char,
    rule: &'static str,
    what: &str,
) -> Result<(), RuleError> {
    let n = grid::cells(&level.grid).filter(|&(_, _, g)| g == c).count();
    if n == 1 {
        Ok(())
    } else {
        Err(RuleError::new(
            rule,
            format!("the grid has {n} cells `{c}`; a level has exactly one {what}"),
        ))
    }
}

fn check_stars(level: &HopperLevel) -> Result<(), RuleError> {
    if level.stars.len() > MAX_STARS {
        return Err(RuleError::new(
            "hopper.stars",
            format!(
                "the level has {} stars; at most {MAX_STARS} are allowed",
                level.stars.len()
            ),
        ));
    }
    for (i, &[x, y]) in level.stars.iter().enumerate() {
        if x >= level.width || y >= level.height {
            return Err(RuleError::new(
                "hopper.stars",
                format!("stars[{i}] at ({x},{y}) is off the grid"),
            ));
        }
        let c = level.grid[y].chars().nth(x).unwrap_or('~');
        if !matches!(c, '.' | ':') {
            return Err(RuleError::new(
                "hopper.stars",
                format!(
                    "stars[{i}] at ({x},{y}) is on `{c}`; a star lies on grass `.` or dirt `:` only"
                ),
            ));
        }
        if level.stars[..i].contains(&[x, y]) {
            return Err(RuleError::new(
                "hopper.stars",
                format!("stars[{i}] at ({x},{y}) is listed twice"),
            ));
        }
    }
    Ok(())
}
