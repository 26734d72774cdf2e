//! Hopper rules (games/src/hopper/README.md), compiled for a fast solver.
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

/// The level as it stands in `state`: the hopper's cell becomes the start, gone dirt
/// water, collected stars vanish. `None` when the hopper stands on dirt (the start is
/// grass, so the grid cannot say that its cell will crumble).
pub fn render(level: &HopperLevel, board: &Board, state: u128) -> Option<HopperLevel> {
    let (pos, stars, gone) = unpack(state);
    if board.dirt & (1 << pos) != 0 {
        return None;
    }
    let grid = grid::cells(&level.grid)
        .map(|(x, y, c)| {
            let cell = y * level.width + x;
            match c {
                _ if cell == pos => 'S',
                _ if gone & (1 << cell) != 0 => '~',
                'S' => '.',
                c => c,
            }
        })
        .collect::<Vec<char>>()
        .chunks(level.width)
        .map(String::from_iter)
        .collect();
    let stars = level
        .stars
        .iter()
        .zip(&board.star_cells)
        .filter(|&(_, &cell)| stars & board.star_bit[cell] == 0)
        .map(|(&star, _)| star)
        .collect();
    Some(HopperLevel {
        grid,
        stars,
        ..level.clone()
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Dir::*;

    fn level(rows: &[&str], stars: &[[usize; 2]]) -> HopperLevel {
        HopperLevel {
            width: rows[0].chars().count(),
            height: rows.len(),
            grid: rows.iter().map(|r| r.to_string()).collect(),
            stars: stars.to_vec(),
        }
    }

    fn board(rows: &[&str], stars: &[[usize; 2]]) -> Board {
        let lv = level(rows, stars);
        validate(&lv).unwrap();
        Board::compile(&lv)
    }

    /// Hops from the start; the state after each hop that landed on grass or dirt, and
    /// the last step (which may end the sequence).
    fn hop_all(b: &Board, moves: &[Dir]) -> (u128, Step) {
        let mut state = b.start_state();
        let mut last = Step::To(state);
        for &d in moves {
            last = b.step(state, d);
            match last {
                Step::To(next) => state = next,
                _ => break,
            }
        }
        (state, last)
    }

    fn at(b: &Board, state: u128) -> (usize, usize) {
        b.xy(unpack(state).0)
    }

    #[test]
    fn a_hop_moves_one_cell_and_grass_takes_any_number_of_visits() {
        let b = board(&["G..", "~~.", "S.."], &[]);
        let (s, last) = hop_all(&b, &[R, L, R, R, U]);
        assert_eq!(last, Step::To(s));
        assert_eq!(at(&b, s), (2, 1));
        // Nothing turned to water on grass.
        assert_eq!(unpack(s).2, 0);
    }

    #[test]
    fn dirt_holds_while_stood_on_and_turns_to_water_when_left() {
        let b = board(&["G~~", "S:."], &[]);
        // Onto the dirt at (1,1): it still holds.
        let (s, _) = hop_all(&b, &[R]);
        assert_eq!((at(&b, s), unpack(s).2), ((1, 1), 0));
        // Off it to (2,1): cell 4 (= 1 * 3 + 1) has turned to water.
        let (s, _) = hop_all(&b, &[R, R]);
        assert_eq!((at(&b, s), unpack(s).2), ((2, 1), 1 << 4));
        // Back onto it: water, the sequence fails.
        assert_eq!(hop_all(&b, &[R, R, L]).1, Step::Fell);
        assert_eq!(b.why_fell(s, L), Fall::Water { slid: false });
    }

    #[test]
    fn leaving_dirt_for_an_arrow_that_slides_back_onto_it_fails() {
        // Up onto the dirt at (0,0), then right onto `<`, which slides straight back
        // onto (0,0): already water.
        let b = board(&[":<", "SG"], &[]);
        let (s, _) = hop_all(&b, &[U]);
        assert_eq!(at(&b, s), (0, 0));
        assert_eq!(b.step(s, R), Step::Fell);
        assert_eq!(b.why_fell(s, R), Fall::Water { slid: true });
    }

    #[test]
    fn arrows_chain_within_one_hop_and_turn_the_hopper() {
        // R lands on `>` at (1,0), slides to `>` at (2,0), then to `v` at (3,0), which
        // turns it down onto the grass at (3,1): one hop.
        let b = board(&["S>>v", "G~~."], &[]);
        assert_eq!(b.trace(0, R).cells, vec![1, 2, 3, 7]);
        let (s, last) = hop_all(&b, &[R]);
        assert_eq!(last, Step::To(s));
        assert_eq!(at(&b, s), (3, 1));
    }

    #[test]
    fn an_arrow_is_never_consumed() {
        // Over `>` at (1,0) to (2,0), back onto (1,0) which slides on to (2,0) again.
        let b = board(&["S>.", "G~~"], &[]);
        let (s, _) = hop_all(&b, &[R, L]);
        assert_eq!(at(&b, s), (2, 0));
    }

    #[test]
    fn falling_off_the_grid_or_into_water_fails() {
        let b = board(&["S~.", ".>G"], &[]);
        // Off the top or the left edge.
        assert_eq!(b.step(b.start_state(), U), Step::Fell);
        assert_eq!(
            b.why_fell(b.start_state(), L),
            Fall::OffGrid { slid: false }
        );
        // Into the water at (1,0).
        assert_eq!(b.why_fell(b.start_state(), R), Fall::Water { slid: false });
        // From (0,1), R onto `>` at (1,1) slides onto the goal: fine.
        assert_eq!(hop_all(&b, &[D, R]).1, Step::Won);
        // `>` on the right edge slides off it; `>` before water slides into it.
        let edge = board(&["S>", "G~"], &[]);
        assert_eq!(
            edge.why_fell(edge.start_state(), R),
            Fall::OffGrid { slid: true }
        );
        let pond = board(&["S>~", "G~~"], &[]);
        assert_eq!(
            pond.why_fell(pond.start_state(), R),
            Fall::Water { slid: true }
        );
    }

    #[test]
    fn a_loop_of_arrows_fails() {
        // `>` at (1,0) and `<` at (2,0) throw the hopper to and fro for ever.
        let b = board(&["S><", "G~~"], &[]);
        assert_eq!(b.trace(0, R).end, Err(Fall::Loop));
        assert_eq!(b.step(b.start_state(), R), Step::Fell);
        assert_eq!(b.why_fell(b.start_state(), R), Fall::Loop);
    }

    #[test]
    fn a_slide_back_onto_grass_changes_nothing() {
        // R onto `<` slides straight back onto the start: the same state.
        let b = board(&["S<", "G~"], &[]);
        assert_eq!(b.step(b.start_state(), R), Step::To(b.start_state()));
    }

    #[test]
    fn stars_are_collected_by_a_hop_or_by_a_slide() {
        // Stars at (2,0) (reached by sliding over `>`) and (2,1) (hopped onto).
        let b = board(&["S>.", "G~."], &[[2, 0], [2, 1]]);
        let (s, _) = hop_all(&b, &[R]);
        assert_eq!((at(&b, s), unpack(s).1), ((2, 0), 0b01));
        let (s, _) = hop_all(&b, &[R, D]);
        assert_eq!(unpack(s).1, 0b11);
    }

    #[test]
    fn the_goal_ends_the_sequence_perfect_or_not() {
        let b = board(&["SG.", "..."], &[[2, 1]]);
        // Straight onto the goal without the star.
        assert_eq!(b.step(b.start_state(), R), Step::GoalEarly(0));
        // Round by the star, then onto the goal: D R R (star) U (2,0) L (goal).
        assert_eq!(hop_all(&b, &[D, R, R, U, L]).1, Step::Won);
        // A goal reached by a slide counts the same.
        let slide = board(&["S>G"], &[]);
        assert_eq!(slide.step(slide.start_state(), R), Step::Won);
    }

    #[test]
    fn a_level_without_stars_is_won_on_reaching_the_goal() {
        let b = board(&["S.G"], &[]);
        assert_eq!(hop_all(&b, &[R, R]).1, Step::Won);
    }

    fn rule_of(rows: &[&str], stars: &[[usize; 2]]) -> &'static str {
        let mut lv = level(rows, stars);
        lv.width = rows.iter().map(|r| r.chars().count()).max().unwrap();
        validate(&lv).unwrap_err().rule
    }

    #[test]
    fn validation_names_the_rule_broken() {
        assert_eq!(rule_of(&["S.G", "..#"], &[]), "grid.cell");
        assert_eq!(rule_of(&["S.G", ".."], &[]), "grid.width");
        assert_eq!(rule_of(&["S.G.........."], &[]), "grid.size");
        let big: Vec<String> = (0..9)
            .map(|y| match y {
                0 => "S...........".to_string(),
                8 => "G...........".to_string(),
                _ => "............".to_string(),
            })
            .collect();
        let big: Vec<&str> = big.iter().map(String::as_str).collect();
        assert_eq!(rule_of(&big, &[]), "hopper.size");
        assert_eq!(rule_of(&["..G"], &[]), "hopper.start");
        assert_eq!(rule_of(&["S.S", "G.."], &[]), "hopper.start");
        assert_eq!(rule_of(&["S.."], &[]), "hopper.goal");
        assert_eq!(rule_of(&["SGG"], &[]), "hopper.goal");
    }

    #[test]
    fn stars_lie_on_grass_or_dirt_once_each() {
        let rows = ["S.:G", "~>.."];
        assert!(validate(&level(&rows, &[[1, 0], [2, 0], [3, 1]])).is_ok());
        for bad in [[4, 0], [0, 2], [0, 0], [3, 0], [0, 1], [1, 1]] {
            assert_eq!(rule_of(&rows, &[bad]), "hopper.stars", "star at {bad:?}");
        }
        assert_eq!(rule_of(&rows, &[[1, 0], [1, 0]]), "hopper.stars");
        let many: Vec<[usize; 2]> = (0..17).map(|x| [x % 12, 1 + x / 12]).collect();
        let wide = ["S..........G", "............", "............"];
        assert_eq!(rule_of(&wide, &many), "hopper.stars");
        assert!(validate(&level(&wide, &many[..16])).is_ok());
    }

    #[test]
    fn grid_height_must_match() {
        let mut lv = level(&["S.G"], &[]);
        lv.height = 2;
        assert_eq!(validate(&lv).unwrap_err().rule, "grid.height");
    }
}
