//! Skiddy rules (games/src/skiddy/README.md) on bitboards of the inner area.
//!
//! Inner cell (x, y) — x in 1..width-1, y in 1..height-1 — is bit `(y-1) * 6 + (x-1)` of a
//! `u32`: the inner area is at most 6x5 = 30 cells. A board position is a [`State`]: three
//! bit planes holding, per cell, the 3-bit code of the piece on it (0 = empty), so every
//! position of every level packs into 96 bits.

use crate::core::{Dir, RuleError};
use crate::grid;

use super::SkiddyLevel;

/// Inner cells per row of the bit layout (the widest inner area).
pub const STRIDE: usize = 6;
pub const MAX_WIDTH: usize = 8;
pub const MAX_HEIGHT: usize = 7;
pub const MIN_WIDTH: usize = 5;
pub const MIN_HEIGHT: usize = 4;

/// Piece codes: the four skiddy colours, then ice and crates.
pub const RED: u8 = 1;
pub const ICE: u8 = 5;
pub const CRATE: u8 = 6;
pub const COLOURS: usize = 4;
/// Skiddy letters by colour code - 1, and the goal letters of the same colours.
pub const SKIDDY_LETTERS: [char; COLOURS] = ['r', 'y', 'b', 'g'];
pub const GOAL_LETTERS: [char; COLOURS] = ['R', 'Y', 'B', 'G'];
pub const CELL_CHARS: &str = "#.ORYBGrybgci";

pub const COL_FIRST: u32 = 0b000001_000001_000001_000001_000001;
pub const COL_LAST: u32 = COL_FIRST << (STRIDE - 1);

#[inline]
pub fn bit(cell: usize) -> u32 {
    1u32 << cell
}

/// The inner cell index of grid cell (x, y); only for inner cells.
pub fn cell_of(x: usize, y: usize) -> usize {
    (y - 1) * STRIDE + (x - 1)
}

/// Grid coordinates of an inner cell index.
pub fn xy_of(cell: usize) -> (usize, usize) {
    (cell % STRIDE + 1, cell / STRIDE + 1)
}

pub fn is_skiddy(kind: u8) -> bool {
    (RED..=RED + COLOURS as u8 - 1).contains(&kind)
}

/// The piece code of a grid character, if it is a movable.
pub fn kind_of_char(c: char) -> Option<u8> {
    match c {
        'i' => Some(ICE),
        'c' => Some(CRATE),
        _ => SKIDDY_LETTERS
            .iter()
            .position(|&l| l == c)
            .map(|i| i as u8 + RED),
    }
}

/// The grid character of a piece code.
pub fn char_of_kind(kind: u8) -> char {
    match kind {
        ICE => 'i',
        CRATE => 'c',
        k => SKIDDY_LETTERS[(k - RED) as usize],
    }
}

/// The neighbour of an inner cell in direction d (only where it is inside).
#[inline]
fn step(cell: usize, d: Dir) -> usize {
    match d {
        Dir::U => cell - STRIDE,
        Dir::D => cell + STRIDE,
        Dir::L => cell - 1,
        Dir::R => cell + 1,
    }
}

/// Every skiddy of `within` orthogonally connected to `seed` through `within`.
pub fn connected(seed: u32, within: u32) -> u32 {
    let mut group = seed & within;
    loop {
        let grown = (group
            | ((group << 1) & !COL_FIRST)
            | ((group >> 1) & !COL_LAST)
            | (group << STRIDE)
            | (group >> STRIDE))
            & within;
        if grown == group {
            return group;
        }
        group = grown;
    }
}

/// The movables of one board position: three bit planes of the piece codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct State(pub [u32; 3]);

impl State {
    pub fn occupied(self) -> u32 {
        self.0[0] | self.0[1] | self.0[2]
    }

    #[inline]
    pub fn kind_at(self, cell: usize) -> u8 {
        let [a, b, c] = self.0;
        (((a >> cell) & 1) | (((b >> cell) & 1) << 1) | (((c >> cell) & 1) << 2)) as u8
    }

    /// The cells holding pieces of one kind (`kind` > 0).
    #[inline]
    pub fn mask(self, kind: u8) -> u32 {
        let pick = |plane: u32, on: bool| if on { plane } else { !plane };
        pick(self.0[0], kind & 1 != 0)
            & pick(self.0[1], kind & 2 != 0)
            & pick(self.0[2], kind & 4 != 0)
    }

    /// The cells whose code differs from the one `code` gives them in bit planes (per
    /// cell the code of the goal it faces, say): one test for every kind at once.
    #[inline(always)]
    pub fn coded_other_than(self, code: &[u32; 3]) -> u32 {
        (self.0[0] ^ code[0]) | (self.0[1] ^ code[1]) | (self.0[2] ^ code[2])
    }

    /// Cells holding a skiddy of any colour.
    #[inline]
    pub fn skiddies(self) -> u32 {
        // Codes 5 (ice) and 6 (crate) are the ones with bit 2 and exactly one of bits 0, 1.
        self.occupied() & !(self.0[2] & (self.0[0] ^ self.0[1]))
    }

    pub fn put(&mut self, cell: usize, kind: u8) {
        for (i, plane) in self.0.iter_mut().enumerate() {
            if kind >> i & 1 != 0 {
                *plane |= bit(cell);
            }
        }
    }

    /// Moves a piece of `kind` from `from` to `to`, which is empty or `from` itself.
    #[inline]
    pub fn relocate(&mut self, from: usize, to: usize, kind: u8) {
        let both = bit(from) ^ bit(to);
        for (i, plane) in self.0.iter_mut().enumerate() {
            *plane ^= both & (u32::from(kind >> i & 1)).wrapping_neg();
        }
    }

    /// Moves whatever piece is on `from` to the empty cell `to`.
    #[inline]
    pub fn shift(&mut self, from: usize, to: usize) {
        let both = bit(from) | bit(to);
        for plane in &mut self.0 {
            if *plane & bit(from) != 0 {
                *plane ^= both;
            }
        }
    }

    /// Removes every piece on `cells`.
    pub fn clear(&mut self, cells: u32) {
        for plane in &mut self.0 {
            *plane &= !cells;
        }
    }

    /// The 96-bit key of this position.
    #[inline]
    pub fn key(self) -> u128 {
        u128::from(self.0[0]) | u128::from(self.0[1]) << 32 | u128::from(self.0[2]) << 64
    }

    #[inline]
    pub fn from_key(key: u128) -> State {
        State([key as u32, (key >> 32) as u32, (key >> 64) as u32])
    }
}

/// The static part of a level, compiled for fast moves.
#[derive(Clone, Debug)]
pub struct Board {
    /// Inner cells that are not blocks (floor and pits).
    pub free: u32,
    pub pits: u32,
    /// Cells whose neighbour in direction d is a block, a goal or the border: nothing
    /// advances from them in that direction.
    wall_ahead: [u32; 4],
    /// Per colour (index code - 1): cells whose neighbour in direction d is a goal of
    /// that colour.
    exit_ahead: [[u32; 4]; COLOURS],
    /// Cells facing a goal of any colour, per direction.
    any_exit: [u32; 4],
    /// `exit_ahead` by piece code (0 for codes that are not skiddies).
    exit_by_kind: [[u32; 4]; 8],
    /// Per direction: the bit planes of the code of the skiddy that each goal lets
    /// out, on the cells facing it (a cell faces one goal a direction).
    goal_code: [[u32; 3]; 4],
    /// Per direction and cell: the free cells ahead, up to the first block or the border.
    ray: [[u32; 32]; 4],
    /// Per direction and cell: the farthest cell of the ray (the cell itself if none).
    ray_end: [[u8; 32]; 4],
    /// Free cells, farthest along d first; ties (same distance) in reading order.
    order: [Vec<u8>; 4],
}

impl Board {
    /// Compiles a level that passed [`validate`]; returns the board and the start.
    pub fn compile(level: &SkiddyLevel) -> (Board, State) {
        let (w, h) = (level.width, level.height);
        let rows: Vec<Vec<char>> = level.grid.iter().map(|r| r.chars().collect()).collect();
        let mut board = Board {
            free: 0,
            pits: 0,
            wall_ahead: [0; 4],
            exit_ahead: [[0; 4]; COLOURS],
            any_exit: [0; 4],
            exit_by_kind: [[0; 4]; 8],
            goal_code: [[0; 3]; 4],
            ray: [[0; 32]; 4],
            ray_end: [[0; 32]; 4],
            order: Default::default(),
        };
        let mut start = State::default();
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let (c, b) = (rows[y][x], bit(cell_of(x, y)));
                if c == '#' {
                    continue;
                }
                board.free |= b;
                if c == 'O' {
                    board.pits |= b;
                }
                if let Some(kind) = kind_of_char(c) {
                    start.put(cell_of(x, y), kind);
                }
                for d in Dir::ALL {
                    let (dx, dy) = d.delta();
                    let ahead = rows[(y as i32 + dy) as usize][(x as i32 + dx) as usize];
                    if ahead == '#' || GOAL_LETTERS.contains(&ahead) {
                        board.wall_ahead[d.index()] |= b;
                    }
                    if let Some(colour) = GOAL_LETTERS.iter().position(|&g| g == ahead) {
                        board.exit_ahead[colour][d.index()] |= b;
                    }
                }
            }
        }
        board.order = Dir::ALL.map(|d| farthest_first(board.free, d));
        board.goal_code = goal_codes(&board.exit_ahead);
        for colour in 0..COLOURS {
            board.exit_by_kind[colour + RED as usize] = board.exit_ahead[colour];
            for d in 0..4 {
                board.any_exit[d] |= board.exit_ahead[colour][d];
            }
        }
        for d in Dir::ALL {
            for cell in (0..32).filter(|&c| board.free & bit(c) != 0) {
                let mut at = cell;
                while board.wall_ahead[d.index()] & bit(at) == 0 {
                    at = step(at, d);
                    board.ray[d.index()][cell] |= bit(at);
                }
                board.ray_end[d.index()][cell] = at as u8;
            }
        }
        (board, start)
    }

    /// The free cells ahead of `cell` toward direction `d` (a `Dir::ALL` index), up to
    /// the first block or the border.
    pub(super) fn ray(&self, d: usize, cell: usize) -> u32 {
        self.ray[d][cell]
    }

    /// Inner cells that are goal-adjacent exits for `colour` (code) in direction d.
    pub fn exits(&self, colour: u8, d: Dir) -> u32 {
        self.exit_ahead[(colour - RED) as usize][d.index()]
    }

    pub fn is_win(state: State) -> bool {
        state.skiddies() == 0
    }

    /// One move, by the fastest exact route (the same board as [`Board::tilt_ticks`]).
    #[inline]
    pub fn tilt(&self, state: State, d: Dir) -> State {
        match d {
            Dir::U => self.tilt_by::<0>(state),
            Dir::D => self.tilt_by::<1>(state),
            Dir::L => self.tilt_by::<2>(state),
            Dir::R => self.tilt_by::<3>(state),
        }
    }

    /// The four moves of a state, in `Dir::ALL` order.
    #[inline(always)]
    pub fn tilts(&self, state: State) -> [State; 4] {
        [
            self.tilt_by::<0>(state),
            self.tilt_by::<1>(state),
            self.tilt_by::<2>(state),
            self.tilt_by::<3>(state),
        ]
    }

    /// A move that moves nothing (a quarter of them) needs no test of its own: the
    /// slide's settled set leaves out its pieces at once, and a separate test before
    /// every slide cost more than it saved.
    #[inline(always)]
    pub(super) fn tilt_by<const D: usize>(&self, state: State) -> State {
        self.slide::<D>(state)
            .unwrap_or_else(|| self.ticks_apart::<D>(state))
    }

    /// [`Board::ticks_by`] out of line: the moves with an exit are few, and inlined
    /// they took registers from every move.
    #[inline(never)]
    fn ticks_apart<const D: usize>(&self, state: State) -> State {
        self.ticks_by::<D>(state)
    }

    /// One move exactly as the README's rules state it: ticks, each taking the sliding movables
    /// from the farthest along d to the nearest.
    pub fn tilt_ticks(&self, mut state: State, d: Dir) -> State {
        let wall_ahead = self.wall_ahead[d.index()];
        // Crates never slide by themselves: they start (and stay) stopped.
        let mut sliding = state.occupied() & !state.mask(CRATE);
        let mut pushed = 0u32;
        loop {
            let mut moved = false;
            for &cell in &self.order[d.index()] {
                let cell = cell as usize;
                let here = bit(cell);
                if sliding & here == 0 {
                    continue;
                }
                let kind = state.kind_at(cell);
                if is_skiddy(kind) && self.exits(kind, d) & here != 0 {
                    // The combo: the whole connected group of that colour exits now.
                    let group = connected(here, state.mask(kind));
                    state.clear(group);
                    sliding &= !group;
                    moved = true;
                    continue;
                }
                if wall_ahead & here != 0 {
                    sliding &= !here;
                    continue;
                }
                let next = step(cell, d);
                let ahead = bit(next);
                let occupied = state.occupied();
                if occupied & ahead != 0 {
                    let pushable = is_skiddy(kind)
                        && state.kind_at(next) == CRATE
                        && pushed & ahead == 0
                        && wall_ahead & ahead == 0
                        && occupied & bit(step(next, d)) == 0;
                    if pushable {
                        let beyond = step(next, d);
                        state.relocate(next, beyond, CRATE);
                        pushed |= bit(beyond);
                        state.relocate(cell, next, kind);
                        sliding = (sliding & !here) | ahead;
                        moved = true;
                    } else {
                        sliding &= !here;
                    }
                    continue;
                }
                state.relocate(cell, next, kind);
                moved = true;
                sliding &= !here;
                if self.pits & ahead == 0 {
                    sliding |= ahead;
                }
            }
            if !moved {
                return state;
            }
        }
    }

    /// The move as whole slides, one piece at a time from the farthest along d, each
    /// sliding until it stops; `None` as soon as a skiddy would reach its own goal.
    ///
    /// Without an exit, pieces interact only within their own line, and the ticks only
    /// interleave lines: sliding each piece to its end in far-to-near order gives the
    /// same board. A skiddy pushes at most one crate and stops behind it, and no other
    /// mover can reach that crate again in the same move (only a combo could clear the
    /// way), so no record of pushed crates is needed here. Each slide is found at once
    /// from the ray of free cells ahead: its first pit or piece, or its end.
    #[inline(always)]
    fn slide<const D: usize>(&self, state: State) -> Option<State> {
        let wall_ahead = self.wall_ahead[D];
        let mut out = state;
        let mut occupied = state.occupied();
        let crates = state.mask(CRATE);
        // Crates not against a wall: the only ones a skiddy might push.
        let mut pushable = crates & !wall_ahead;
        let mut movers = occupied & !crates & !self.settled::<D>(occupied & !crates);
        while movers != 0 {
            let cell = farthest_along::<D>(movers);
            movers &= !bit(cell);
            // The first pit or piece on the free cells ahead, else the last of them. The
            // piece's kind matters only at a goal or a crate: it is read only there.
            let hit = self.ray[D][cell] & (occupied | self.pits);
            let stop = if hit == 0 {
                let end = self.ray_end[D][cell] as usize;
                if self.any_exit[D] & bit(end) != 0
                    && self.exit_by_kind[out.kind_at(cell) as usize][D] & bit(end) != 0
                {
                    return None;
                }
                end
            } else {
                let first = nearest_along::<D>(hit);
                if occupied & bit(first) == 0 {
                    first
                } else if pushable & bit(first) != 0
                    && occupied & bit(ahead::<D>(first)) == 0
                    && is_skiddy(out.kind_at(cell))
                {
                    let beyond = ahead::<D>(first);
                    out.relocate(first, beyond, CRATE);
                    pushable = (pushable & !bit(first)) | (bit(beyond) & !wall_ahead);
                    occupied ^= bit(first) | bit(beyond);
                    first
                } else {
                    behind::<D>(first)
                }
            };
            if stop != cell {
                out.shift(cell, stop);
                occupied ^= bit(cell) | bit(stop);
            }
        }
        Some(out)
    }

    /// The slide of a board whose movers are ice and crates, which never exit.
    pub(super) fn slide_alone<const D: usize>(&self, state: State) -> State {
        self.slide::<D>(state).expect("ice never exits")
    }

    /// Whether a skiddy of `after` (the move toward D without exits and pushes) would
    /// push a crate: one stands right behind a crate that has room ahead. The first
    /// push of a slide meets exactly that, its line ahead of the crate as here.
    #[inline(always)]
    pub(super) fn pushes<const D: usize>(&self, crates: u32, ends: u32, after: State) -> bool {
        after.skiddies() & self.behind_crates::<D>(crates, ends) != 0
    }

    /// The cells of `ends` (an occupancy after a move toward D) right behind a crate
    /// with room ahead: where a skiddy would push.
    #[inline(always)]
    pub(super) fn behind_crates<const D: usize>(&self, crates: u32, ends: u32) -> u32 {
        let wall_ahead = self.wall_ahead[D];
        let with_room = crates & !wall_ahead & facing::<D>(!ends);
        ends & !wall_ahead & facing::<D>(with_room)
    }

    /// Movers that cannot move at all: those against a wall with no goal ahead, and
    /// every mover lined up behind one of them (only crates are ever pushed). Skipping
    /// them spares the slide most of its pieces, as most rest against something.
    #[inline(always)]
    fn settled<const D: usize>(&self, movers: u32) -> u32 {
        let open = movers & !self.wall_ahead[D];
        let mut settled = movers & self.wall_ahead[D] & !self.any_exit[D];
        loop {
            let grown = settled | (open & facing::<D>(settled));
            if grown == settled {
                return settled;
            }
            settled = grown;
        }
    }

    /// The cells where a skiddy of `state` faces a goal of its colour toward D: one
    /// test for every colour, where most ticks find none.
    #[inline(always)]
    fn at_own_goal<const D: usize>(&self, state: State) -> u32 {
        self.any_exit[D] & !state.coded_other_than(&self.goal_code[D])
    }

    /// Per direction, the bit planes of the code of the skiddy that each goal lets out,
    /// on the cells facing it.
    pub(super) fn goal_code(&self) -> [[u32; 3]; 4] {
        self.goal_code
    }

    /// The tick rules, fast: exits happen only on the line next to the border, which is
    /// the farthest along d, so each tick first lets out the skiddies facing their goal
    /// (with their groups, as the board stands at the start of the tick) and then steps
    /// every other sliding piece at once, as bit sets: a piece advances when the cell
    /// ahead is empty or its occupant advances in the same tick (the farther one goes
    /// first), or when it is a skiddy pushing a crate into such a cell. Lines do not
    /// meet, so a few rounds from the front settle a whole tick.
    #[inline(always)]
    pub(super) fn ticks_by<const D: usize>(&self, mut state: State) -> State {
        let wall_ahead = self.wall_ahead[D];
        let mut sliding = state.occupied() & !state.mask(CRATE);
        let mut pushed = 0u32;
        loop {
            let mut moved = false;
            if self.at_own_goal::<D>(state) & sliding != 0 {
                for colour in RED..RED + COLOURS as u8 {
                    let mine = state.mask(colour);
                    let exits = self.exit_by_kind[colour as usize][D] & sliding & mine;
                    if exits != 0 {
                        let group = connected(exits, mine);
                        state.clear(group);
                        sliding &= !group;
                        moved = true;
                    }
                }
            }
            let occupied = state.occupied();
            let open = sliding & !wall_ahead;
            let pushers =
                open & state.skiddies() & facing::<D>(state.mask(CRATE) & !pushed & !wall_ahead);
            let mut movers = 0u32;
            loop {
                let free = !occupied | movers;
                let next = (open & facing::<D>(free)) | (pushers & facing::<D>(facing::<D>(free)));
                if next == movers {
                    break;
                }
                movers = next;
            }
            if movers == 0 && !moved {
                return state;
            }
            let pushing = movers & pushers;
            let crate_from = advance::<D>(pushing);
            let crate_to = advance::<D>(crate_from);
            for (i, plane) in state.0.iter_mut().enumerate() {
                let crate_bits = crate_to & u32::from(CRATE >> i & 1).wrapping_neg();
                *plane =
                    (*plane & !movers & !crate_from) | advance::<D>(*plane & movers) | crate_bits;
            }
            pushed |= crate_to;
            sliding = (advance::<D>(movers & !pushing) & !self.pits) | advance::<D>(pushing);
        }
    }
}

/// Directions by index (`Dir::ALL` order: U, D, L, R): D and R go to higher cells.
#[inline(always)]
fn increasing<const D: usize>() -> bool {
    D == 1 || D == 3
}

#[inline(always)]
fn ahead<const D: usize>(cell: usize) -> usize {
    match D {
        0 => cell.wrapping_sub(STRIDE),
        1 => cell + STRIDE,
        2 => cell.wrapping_sub(1),
        _ => cell + 1,
    }
}

/// The cell before `cell` along D (wrapping: callers use it only inside the board).
#[inline(always)]
fn behind<const D: usize>(cell: usize) -> usize {
    match D {
        0 => cell + STRIDE,
        1 => cell.wrapping_sub(STRIDE),
        2 => cell + 1,
        _ => cell.wrapping_sub(1),
    }
}

/// The cells one step along direction `D` from `cells` (callers pass only cells with a
/// free cell ahead, so nothing wraps or falls off).
#[inline(always)]
fn advance<const D: usize>(cells: u32) -> u32 {
    match D {
        0 => cells >> STRIDE,
        1 => cells << STRIDE,
        2 => cells >> 1,
        _ => cells << 1,
    }
}

/// The cells whose neighbour along direction `D` is in `cells`. Shifting along a row
/// wraps between a row's ends, but those cells face the border and callers mask them out.
#[inline(always)]
pub(super) fn facing<const D: usize>(cells: u32) -> u32 {
    match D {
        0 => cells << STRIDE,
        1 => cells >> STRIDE,
        2 => cells << 1,
        _ => cells >> 1,
    }
}

/// The cell of `cells` (non-empty) farthest along direction `D`.
#[inline(always)]
fn farthest_along<const D: usize>(cells: u32) -> usize {
    if increasing::<D>() {
        31 - cells.leading_zeros() as usize
    } else {
        cells.trailing_zeros() as usize
    }
}

/// The cell of `cells` (non-empty) nearest along direction `D` (least far).
#[inline(always)]
fn nearest_along<const D: usize>(cells: u32) -> usize {
    if increasing::<D>() {
        cells.trailing_zeros() as usize
    } else {
        31 - cells.leading_zeros() as usize
    }
}

/// Per direction, the bit planes of the colour code of the goal each cell faces.
fn goal_codes(exit_ahead: &[[u32; 4]; COLOURS]) -> [[u32; 3]; 4] {
    std::array::from_fn(|d| {
        std::array::from_fn(|plane| {
            (0..COLOURS)
                .filter(|&colour| (colour + RED as usize) >> plane & 1 != 0)
                .fold(0, |code, colour| code | exit_ahead[colour][d])
        })
    })
}

/// Free cells sorted farthest along d first, ties in reading order.
fn farthest_first(free: u32, d: Dir) -> Vec<u8> {
    let mut cells: Vec<(i32, u8)> = (0..32)
        .filter(|&c| free & bit(c) != 0)
        .map(|c| {
            let (x, y) = xy_of(c);
            let (dx, dy) = d.delta();
            (-(x as i32 * dx + y as i32 * dy), c as u8)
        })
        .collect();
    cells.sort_unstable();
    cells.into_iter().map(|(_, c)| c).collect()
}

/// Checks every rule of the skiddy level format.
pub fn validate(level: &SkiddyLevel) -> Result<(), RuleError> {
    let (w, h) = (level.width, level.height);
    grid::check_shape(
        &level.grid,
        w,
        h,
        (MIN_WIDTH, MIN_HEIGHT),
        (MAX_WIDTH, MAX_HEIGHT),
        CELL_CHARS,
    )?;
    let mut skiddies = 0;
    for (x, y, c) in grid::cells(&level.grid) {
        let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
        let goal = GOAL_LETTERS.contains(&c);
        if border && c != '#' && !goal {
            return Err(RuleError::new(
                "skiddy.border",
                format!(
                    "cell ({x},{y}) is `{c}`: the border holds only blocks `#` and goals `R` `Y` `B` `G`"
                ),
            ));
        }
        if !border && goal {
            return Err(RuleError::new(
                "skiddy.goal",
                format!("cell ({x},{y}) is the goal `{c}`: goals stand on the border only"),
            ));
        }
        if kind_of_char(c).is_some_and(is_skiddy) {
            skiddies += 1;
        }
    }
    if skiddies == 0 {
        return Err(RuleError::new(
            "skiddy.skiddies",
            "the level has no skiddy: it would be won before the first move",
        ));
    }
    Ok(())
}

/// The level with the movables of `state` in place of the start's; `None` when a
/// movable rests in a pit (the grid has no symbol for that).
pub fn render(level: &SkiddyLevel, board: &Board, state: State) -> Option<SkiddyLevel> {
    if state.occupied() & board.pits != 0 {
        return None;
    }
    let inner = |x: usize, y: usize| x > 0 && y > 0 && x < level.width - 1 && y < level.height - 1;
    let grid = grid::cells(&level.grid)
        .map(|(x, y, c)| match c {
            _ if !inner(x, y) || c == '#' => c,
            _ => match state.kind_at(cell_of(x, y)) {
                0 if c == 'O' => 'O',
                0 => '.',
                k => char_of_kind(k),
            },
        })
        .collect::<Vec<char>>()
        .chunks(level.width)
        .map(String::from_iter)
        .collect();
    Some(SkiddyLevel {
        grid,
        ..level.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Dir::*;

    fn level(rows: &[&str]) -> SkiddyLevel {
        SkiddyLevel {
            width: rows[0].len(),
            height: rows.len(),
            grid: rows.iter().map(|r| r.to_string()).collect(),
        }
    }

    /// The grid with the movables of `state` in place of the start's.
    fn render(lv: &SkiddyLevel, state: State) -> Vec<String> {
        lv.grid
            .iter()
            .enumerate()
            .map(|(y, row)| {
                row.chars()
                    .enumerate()
                    .map(|(x, c)| {
                        let inner = x > 0 && y > 0 && x < lv.width - 1 && y < lv.height - 1;
                        if !inner || c == '#' {
                            return c;
                        }
                        match state.kind_at(cell_of(x, y)) {
                            0 if c == 'O' => 'O',
                            0 => '.',
                            k => char_of_kind(k),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// Plays moves by the literal tick rules, checking the fast route agrees, and
    /// renders the board after each.
    fn play(rows: &[&str], moves: &[Dir]) -> Vec<Vec<String>> {
        let lv = level(rows);
        validate(&lv).unwrap();
        let (board, mut state) = Board::compile(&lv);
        let mut boards = Vec::new();
        for &d in moves {
            let next = board.tilt_ticks(state, d);
            assert_eq!(board.tilt(state, d), next, "fast route agrees on {d:?}");
            state = next;
            boards.push(render(&lv, state));
        }
        boards
    }

    fn after(rows: &[&str], d: Dir) -> Vec<String> {
        play(rows, &[d]).pop().unwrap()
    }

    #[test]
    fn movables_slide_until_a_block_and_stop_on_each_other() {
        let start = ["#######", "#r.i.##", "#..#..#", "#y....#", "#######"];
        // Right: the ice (farther) stops at the block (5,1), the red against the ice.
        assert_eq!(
            after(&start, R),
            ["#######", "#..ri##", "#..#..#", "#....y#", "#######"]
        );
        // Down: the yellow is already down; the red stops on it; the ice sits on a block.
        assert_eq!(
            after(&start, D),
            ["#######", "#..i.##", "#r.#..#", "#y....#", "#######"]
        );
    }

    #[test]
    fn a_move_that_changes_nothing_leaves_the_board_alone() {
        let lv = level(&["#####", "#ry.#", "#...#", "#####"]);
        let (board, state) = Board::compile(&lv);
        assert_eq!(board.tilt(state, U), state);
        assert_eq!(board.tilt(state, L), state);
        assert_ne!(board.tilt(state, R), state);
    }

    #[test]
    fn a_skiddy_exits_through_a_goal_of_its_colour() {
        assert_eq!(
            after(&["######", "#r...R", "#....#", "######"], R),
            ["######", "#....R", "#....#", "######"]
        );
    }

    #[test]
    fn a_goal_of_another_colour_is_a_wall_and_ice_never_exits() {
        assert_eq!(
            after(&["######", "#y...R", "#i...Y", "######"], R),
            ["######", "#...yR", "#...iY", "######"]
        );
    }

    #[test]
    fn combo_takes_the_connected_group_wherever_it_is() {
        // Moving right: on tick 1 the reds at (5,2) and (5,3) stop against the border,
        // (4,3) stops against (5,3), (4,1) reaches (5,1) and (1,3) reaches (2,3). On
        // tick 2 the red at (5,1) exits with its group (5,2)-(5,3)-(4,3). The red from
        // (1,3) was never next to them and is still sliding: it slides through the
        // space they left, to (5,3).
        assert_eq!(
            after(&["#######", "#...r.R", "#....r#", "#r..rr#", "#######"], R),
            ["#######", "#.....R", "#.....#", "#....r#", "#######"]
        );
    }

    #[test]
    fn combo_group_is_taken_at_the_tick_of_the_exit() {
        // The reds start side by side, but the lower one is held by the block at (3,2)
        // while the upper one slides on; when it exits they are apart: it leaves alone.
        assert_eq!(
            after(&["#######", "#.r...R", "#.r#..#", "#######"], R),
            ["#######", "#.....R", "#.r#..#", "#######"]
        );
    }

    #[test]
    fn a_stopped_movable_stays_stopped_when_its_blocker_leaves() {
        // The ice stops against the red at (5,2) on tick 1; on tick 3 that red leaves in
        // the combo of the red reaching the goal, but the ice does not start again.
        assert_eq!(
            after(&["#######", "#..r..R", "#...ir#", "#######"], R),
            ["#######", "#.....R", "#...i.#", "#######"]
        );
    }

    #[test]
    fn a_skiddy_pushes_a_crate_one_cell_and_stops_behind_it() {
        let moves = play(&["#######", "#rc...#", "#.....#", "#######"], &[R, R]);
        assert_eq!(moves[0], ["#######", "#.rc..#", "#.....#", "#######"]);
        // One cell a move, every move.
        assert_eq!(moves[1], ["#######", "#..rc.#", "#.....#", "#######"]);
    }

    #[test]
    fn crates_are_pushed_only_into_free_floor_or_empty_pits() {
        // Against an inner block, against another crate, toward a goal, against the
        // border: no push, and every skiddy stops where it is.
        let start = [
            "#######", "#..rc#R", "#.rcc.#", "#...rcY", "#...rc#", "#######",
        ];
        assert_eq!(after(&start, R), start);
    }

    #[test]
    fn only_skiddies_push_crates() {
        assert_eq!(
            after(&["#######", "#i.c..#", "#r....#", "#######"], R),
            ["#######", "#.ic..#", "#....r#", "#######"]
        );
    }

    #[test]
    fn a_crate_pushed_into_a_pit_stays_and_can_be_pushed_out_later() {
        let moves = play(&["#######", "#rcO..#", "#.....#", "#######"], &[R, R]);
        assert_eq!(moves[0], ["#######", "#.rc..#", "#.....#", "#######"]);
        // The second push takes the crate out; the skiddy takes its cell, the pit.
        assert_eq!(moves[1], ["#######", "#..rc.#", "#.....#", "#######"]);
    }

    #[test]
    fn a_pit_traps_until_the_next_move() {
        let moves = play(&["#######", "#r.O..#", "#.....#", "#######"], &[R, R, L]);
        assert_eq!(moves[0], ["#######", "#..r..#", "#.....#", "#######"]);
        assert_eq!(moves[1], ["#######", "#..O.r#", "#.....#", "#######"]);
        // Sliding back, it falls in again.
        assert_eq!(moves[2], ["#######", "#..r..#", "#.....#", "#######"]);
    }

    #[test]
    fn a_full_pit_is_an_obstacle() {
        // The ice is farther along and falls in first; the skiddy stops against it.
        assert_eq!(
            after(&["#######", "#ri.O.#", "#.....#", "#######"], R),
            ["#######", "#..ri.#", "#.....#", "#######"]
        );
    }

    #[test]
    fn ice_slides_like_a_skiddy() {
        assert_eq!(
            after(&["######", "#.i..#", "#...i#", "#r...#", "######"], L),
            ["######", "#i...#", "#i...#", "#r...#", "######"]
        );
    }

    #[test]
    fn a_crate_is_pushed_at_most_once_a_move() {
        // Tick 1: the pusher (2,2) pushes the crate to (4,2); the yellow follows to (2,2).
        // Tick 2: the red at (5,1) exits and its group (5,1)-(4,1)-(3,1)-(3,2) goes with
        // it, pusher included; the yellow advances to (3,2). Tick 3: the crate ahead was
        // already pushed this move, so the yellow stops.
        assert_eq!(
            after(&["#######", "#.rrr.R", "#yrc..#", "#######"], R),
            ["#######", "#.....R", "#..yc.#", "#######"]
        );
    }

    #[test]
    fn a_skiddy_in_a_pit_leaves_it_on_the_next_move() {
        let moves = play(&["######", "#rO..R", "#....#", "######"], &[R, R]);
        assert_eq!(moves[0], ["######", "#.r..R", "#....#", "######"]);
        assert_eq!(moves[1], ["######", "#.O..R", "#....#", "######"]);
    }

    #[test]
    fn connected_follows_orthogonal_neighbours_only() {
        let within = bit(cell_of(1, 1)) | bit(cell_of(2, 1)) | bit(cell_of(3, 2));
        assert_eq!(
            connected(bit(cell_of(1, 1)), within),
            bit(cell_of(1, 1)) | bit(cell_of(2, 1))
        );
        // No wrap from the end of one row to the start of the next.
        let wrap = bit(cell_of(6, 1)) | bit(cell_of(1, 2));
        assert_eq!(connected(bit(cell_of(6, 1)), wrap), bit(cell_of(6, 1)));
    }

    #[test]
    fn state_planes_round_trip() {
        let mut s = State::default();
        for (cell, kind) in [(0, 1), (5, 2), (7, 3), (12, 4), (29, ICE), (17, CRATE)] {
            s.put(cell, kind);
        }
        assert_eq!(State::from_key(s.key()), s);
        assert_eq!(s.kind_at(29), ICE);
        assert_eq!(s.mask(CRATE), bit(17));
        assert_eq!(s.skiddies(), bit(0) | bit(5) | bit(7) | bit(12));
        s.relocate(17, 18, CRATE);
        assert_eq!(s.mask(CRATE), bit(18));
        assert_eq!(s.kind_at(17), 0);
    }

    #[test]
    fn validation_names_the_rule() {
        let rule = |rows: &[&str]| validate(&level(rows)).unwrap_err().rule;
        assert_eq!(rule(&["#####", "#r..#", "#...#", "##.##"]), "skiddy.border");
        assert_eq!(rule(&["#####", "#rR.#", "#...#", "#####"]), "skiddy.goal");
        assert_eq!(
            rule(&["#####", "#ic.#", "#...#", "#####"]),
            "skiddy.skiddies"
        );
        assert_eq!(rule(&["#####", "#rx.#", "#...#", "#####"]), "grid.cell");
        assert_eq!(rule(&["####", "#r.#", "#..#", "####"]), "grid.size");
        assert_eq!(
            rule(&["#########", "#r......#", "#.......#", "#########"]),
            "grid.size"
        );
        assert_eq!(rule(&["#####", "#r..#", "#....#", "#####"]), "grid.width");
        assert!(validate(&level(&["#####", "#r..R", "#...#", "#####"])).is_ok());
    }
}
