//! The fruit generator: Tom Atom's walls (grown from the border, two tiles at a time
//! under a random symmetry, inner walls under the 3x3-free rule, only the largest area
//! kept), objects placed by weights, then the "un-solve" trick: explore every board
//! reachable from that placement and start from one farthest from any win (up to the
//! tier's par window).

use serde::Serialize;

use super::graph::UNREACHABLE;
use super::rules::{self, Board, FRUIT_LETTERS, bit, cell_of};
use super::{Arrow, FruitLevel, explore};
use crate::core::{Difficulty, Dir, Limits, Rejection, Tier};
use crate::grid;
use crate::rng::LevelRng;

/// Generator parameters of one tier; `(min, max)` pairs are inclusive ranges.
#[derive(Clone, Debug, Serialize)]
pub struct FruitParams {
    /// Board side, border included.
    pub size: (u32, u32),
    pub border_walls: (u32, u32),
    pub inner_walls: (u32, u32),
    pub pairs: (u32, u32),
    pub stones: (u32, u32),
    pub mud: (u32, u32),
    pub one_ways: (u32, u32),
    pub hedgehogs: (u32, u32),
    pub anteaters: (u32, u32),
    /// Fewest free cells a layout must keep.
    pub min_free: u32,
    /// The un-solve target: the tier's par window.
    pub target_par: (u32, Option<u32>),
    /// Dead ends (`metrics.dead_ends`: boards a player can reach and no longer win from,
    /// what simulated players trip over most) a level must have, fewest and most.
    pub dead_ends: (u64, Option<u64>),
}

pub fn tier(difficulty: Difficulty) -> Tier<FruitParams> {
    let (params, dead_ends) = match difficulty {
        Difficulty::Easy => (EASY, None),
        Difficulty::Medium => (MEDIUM, Some("at most 5 dead ends")),
        Difficulty::Hard => (HARD, Some("at least 1 dead end")),
        // `Custom` is never generated (`generate_level` refuses it); the match stays total.
        Difficulty::Expert | Difficulty::Custom => (EXPERT, Some("at least 10 dead ends")),
    };
    Tier {
        par_min: params.target_par.0,
        par_max: params.target_par.1,
        params,
        requires: std::iter::once("solvable").chain(dead_ends).collect(),
        max_attempts: 800,
        max_states: 60_000,
    }
}

const EASY: FruitParams = FruitParams {
    size: (6, 7),
    border_walls: (0, 2),
    inner_walls: (0, 1),
    pairs: (1, 2),
    stones: (0, 0),
    mud: (0, 0),
    one_ways: (0, 0),
    hedgehogs: (0, 0),
    anteaters: (0, 0),
    min_free: 9,
    target_par: (2, Some(4)),
    dead_ends: (0, None),
};

const MEDIUM: FruitParams = FruitParams {
    size: (7, 8),
    border_walls: (1, 3),
    inner_walls: (0, 2),
    pairs: (2, 2),
    stones: (1, 2),
    mud: (0, 2),
    one_ways: (1, 2),
    hedgehogs: (0, 0),
    anteaters: (0, 0),
    min_free: 14,
    target_par: (5, Some(7)),
    dead_ends: (0, Some(5)),
};

const HARD: FruitParams = FruitParams {
    size: (8, 8),
    border_walls: (1, 3),
    inner_walls: (0, 2),
    pairs: (2, 3),
    stones: (1, 2),
    mud: (0, 2),
    one_ways: (0, 2),
    hedgehogs: (0, 1),
    anteaters: (1, 1),
    min_free: 18,
    target_par: (9, Some(12)),
    dead_ends: (1, None),
};

const EXPERT: FruitParams = FruitParams {
    size: (8, 8),
    border_walls: (1, 3),
    inner_walls: (0, 2),
    pairs: (3, 3),
    stones: (1, 2),
    mud: (1, 2),
    one_ways: (1, 2),
    hedgehogs: (1, 1),
    anteaters: (1, 1),
    min_free: 20,
    target_par: (15, Some(24)),
    dead_ends: (10, None),
};

/// How a free cell sits among the walls, which decides its placement weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot {
    Enclosed,
    CorridorEnd,
    Corner,
    Corridor,
    Open,
}

struct Layout {
    w: usize,
    h: usize,
    cells: Vec<Vec<char>>,
}

impl Layout {
    fn at(&self, x: usize, y: usize) -> char {
        self.cells[y][x]
    }

    fn is_static(&self, x: usize, y: usize) -> bool {
        matches!(self.at(x, y), '#' | 'H' | 'A')
    }

    fn neighbour(&self, x: usize, y: usize, d: Dir) -> Option<(usize, usize)> {
        let (dx, dy) = d.delta();
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        (nx >= 0 && ny >= 0 && (nx as usize) < self.w && (ny as usize) < self.h)
            .then_some((nx as usize, ny as usize))
    }

    fn blocked(&self, x: usize, y: usize, d: Dir) -> bool {
        self.neighbour(x, y, d)
            .is_none_or(|(nx, ny)| self.is_static(nx, ny))
    }

    fn spot(&self, x: usize, y: usize) -> Spot {
        let [u, d, l, r] = Dir::ALL.map(|dir| self.blocked(x, y, dir));
        match [u, d, l, r].iter().filter(|&&b| b).count() {
            4 => Spot::Enclosed,
            3 => Spot::CorridorEnd,
            2 if (u && d) || (l && r) => Spot::Corridor,
            2 => Spot::Corner,
            _ => Spot::Open,
        }
    }

    /// Free floor cells in reading order.
    fn floor(&self) -> Vec<(usize, usize)> {
        grid::cells(&grid::to_rows(&self.cells))
            .filter(|&(_, _, c)| c == '.')
            .map(|(x, y, _)| (x, y))
            .collect()
    }
}

pub fn generate(
    params: &FruitParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<FruitLevel, Rejection> {
    let w = rng.range(params.size.0, params.size.1) as usize;
    let h = rng.range(params.size.0, params.size.1) as usize;
    let mut layout = Layout {
        w,
        h,
        cells: grow_walls(w, h, params, rng),
    };
    keep_largest_area(&mut layout);
    if (layout.floor().len() as u32) < params.min_free {
        return Err(Rejection::Candidate("too few free cells"));
    }
    let mut anteaters = Vec::new();
    place_statics(&mut layout, params, rng, &mut anteaters);
    let one_ways = place_one_ways(&layout, params, rng);
    place_fruit(&mut layout, params, rng)?;
    place_stones(&mut layout, params, rng);
    let level = FruitLevel {
        width: w,
        height: h,
        grid: grid::to_rows(&layout.cells),
        one_ways,
        anteaters,
    };
    unsolve(level, params, rng, limits)
}

/// Walls grown from the border in shrinking parts, then inner walls.
fn grow_walls(w: usize, h: usize, params: &FruitParams, rng: &mut LevelRng) -> Vec<Vec<char>> {
    let mut cells = vec![vec!['.'; w]; h];
    for (y, row) in cells.iter_mut().enumerate() {
        for (x, c) in row.iter_mut().enumerate() {
            if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                *c = '#';
            }
        }
    }
    let painter = Painter::new(w, h, rng);
    for _ in 0..rng.range(params.border_walls.0, params.border_walls.1) {
        let (x, y, dir) = match rng.index(4) {
            0 => (1 + rng.index(w - 2), 0, Dir::D),
            1 => (1 + rng.index(w - 2), h - 1, Dir::U),
            2 => (0, 1 + rng.index(h - 2), Dir::R),
            _ => (w - 1, 1 + rng.index(h - 2), Dir::L),
        };
        let span = if matches!(dir, Dir::U | Dir::D) { h } else { w } - 3;
        let mut len = rng.range(1, span.max(1) as u32) as usize;
        let mut dir = dir;
        let mut part = painter.draw(&mut cells, (x, y), dir, len);
        loop {
            let next_len = rng.below(len as u64) as usize;
            let Some(&from) = rng.pick(&part) else { break };
            if next_len == 0 {
                break;
            }
            dir = if matches!(dir, Dir::U | Dir::D) {
                [Dir::L, Dir::R][rng.index(2)]
            } else {
                [Dir::U, Dir::D][rng.index(2)]
            };
            part = painter.draw(&mut cells, from, dir, next_len);
            len = next_len;
        }
    }
    for _ in 0..rng.range(params.inner_walls.0, params.inner_walls.1) {
        let (mut x, mut y) = (1 + rng.index(w - 2), 1 + rng.index(h - 2));
        let dir = Dir::ALL[rng.index(4)];
        let (dx, dy) = dir.delta();
        let mut pending = Vec::new();
        while x >= 1 && y >= 1 && x < w - 1 && y < h - 1 && surroundings_free(&cells, x, y) {
            pending.push((x, y));
            (x, y) = ((x as i32 + dx) as usize, (y as i32 + dy) as usize);
        }
        for (px, py) in pending {
            painter.paint(&mut cells, px, py);
        }
    }
    cells
}

fn surroundings_free(cells: &[Vec<char>], x: usize, y: usize) -> bool {
    (y - 1..=y + 1).all(|yy| (x - 1..=x + 1).all(|xx| cells[yy][xx] != '#'))
}

/// Paints wall tiles one at a time, or two under a random symmetry.
struct Painter {
    w: usize,
    h: usize,
    /// Bits: flip horizontally, flip vertically, transpose (square boards only).
    symmetry: Option<u32>,
}

impl Painter {
    fn new(w: usize, h: usize, rng: &mut LevelRng) -> Painter {
        let two_at_a_time = rng.chance(1, 2);
        let mut symmetry = rng.range(1, 7);
        if w != h {
            symmetry &= 0b011;
            if symmetry == 0 {
                symmetry = 0b001;
            }
        }
        Painter {
            w,
            h,
            symmetry: two_at_a_time.then_some(symmetry),
        }
    }

    fn paint(&self, cells: &mut [Vec<char>], x: usize, y: usize) {
        cells[y][x] = '#';
        if let Some(sym) = self.symmetry {
            let (mut sx, mut sy) = (x, y);
            if sym & 1 != 0 {
                sx = self.w - 1 - sx;
            }
            if sym & 2 != 0 {
                sy = self.h - 1 - sy;
            }
            if sym & 4 != 0 {
                (sx, sy) = (sy, sx);
            }
            cells[sy][sx] = '#';
        }
    }

    /// Paints up to `len` inner cells from `from` (exclusive) in `dir`; returns them.
    fn draw(
        &self,
        cells: &mut [Vec<char>],
        from: (usize, usize),
        dir: Dir,
        len: usize,
    ) -> Vec<(usize, usize)> {
        let (dx, dy) = dir.delta();
        let (mut x, mut y) = (from.0 as i32, from.1 as i32);
        let mut part = Vec::with_capacity(len);
        for _ in 0..len {
            x += dx;
            y += dy;
            if x < 1 || y < 1 || x >= self.w as i32 - 1 || y >= self.h as i32 - 1 {
                break;
            }
            self.paint(cells, x as usize, y as usize);
            part.push((x as usize, y as usize));
        }
        part
    }
}

/// Fills every free area but the largest (the first in reading order on a tie) with wall.
fn keep_largest_area(layout: &mut Layout) {
    let (w, h) = (layout.w, layout.h);
    let mut area = vec![vec![usize::MAX; w]; h];
    let mut sizes = Vec::new();
    for (sx, sy) in layout.floor() {
        if area[sy][sx] != usize::MAX {
            continue;
        }
        let id = sizes.len();
        let mut stack = vec![(sx, sy)];
        area[sy][sx] = id;
        let mut size = 0;
        while let Some((x, y)) = stack.pop() {
            size += 1;
            for d in Dir::ALL {
                if let Some((nx, ny)) = layout.neighbour(x, y, d)
                    && layout.at(nx, ny) == '.'
                    && area[ny][nx] == usize::MAX
                {
                    area[ny][nx] = id;
                    stack.push((nx, ny));
                }
            }
        }
        sizes.push(size);
    }
    let Some(best) = (0..sizes.len()).max_by_key(|&i| (sizes[i], std::cmp::Reverse(i))) else {
        return;
    };
    for (y, row) in area.iter().enumerate() {
        for (x, &id) in row.iter().enumerate() {
            if id != usize::MAX && id != best {
                layout.cells[y][x] = '#';
            }
        }
    }
}

/// Picks a free floor cell by weight and returns it (or `None` if all weigh 0).
fn pick_cell(
    layout: &Layout,
    rng: &mut LevelRng,
    weight: impl Fn(Spot, (usize, usize)) -> u32,
) -> Option<(usize, usize)> {
    let floor = layout.floor();
    let weights: Vec<u32> = floor
        .iter()
        .map(|&(x, y)| weight(layout.spot(x, y), (x, y)))
        .collect();
    rng.weighted(&weights).map(|i| floor[i])
}

/// Hedgehogs and anteaters (never in corridors), then mud.
fn place_statics(
    layout: &mut Layout,
    params: &FruitParams,
    rng: &mut LevelRng,
    anteaters: &mut Vec<Arrow>,
) {
    let beast_weight = |spot: Spot, _| match spot {
        Spot::CorridorEnd | Spot::Corner => 3,
        Spot::Open => 1,
        Spot::Corridor | Spot::Enclosed => 0,
    };
    for _ in 0..rng.range(params.hedgehogs.0, params.hedgehogs.1) {
        if let Some((x, y)) = pick_cell(layout, rng, beast_weight) {
            layout.cells[y][x] = 'H';
        }
    }
    for _ in 0..rng.range(params.anteaters.0, params.anteaters.1) {
        let Some((x, y)) = pick_cell(layout, rng, beast_weight) else {
            continue;
        };
        let open: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| {
                layout
                    .neighbour(x, y, d)
                    .is_some_and(|(nx, ny)| layout.at(nx, ny) == '.')
            })
            .collect();
        if let Some(&dir) = rng.pick(&open) {
            layout.cells[y][x] = 'A';
            anteaters.push(Arrow { x, y, dir });
        }
    }
    for _ in 0..rng.range(params.mud.0, params.mud.1) {
        let mud_weight = |spot: Spot, _| match spot {
            Spot::Open | Spot::Corridor => 2,
            Spot::Corner | Spot::CorridorEnd => 1,
            Spot::Enclosed => 0,
        };
        if let Some((x, y)) = pick_cell(layout, rng, mud_weight) {
            layout.cells[y][x] = '~';
        }
    }
}

/// One-ways on random borders between two non-static cells.
fn place_one_ways(layout: &Layout, params: &FruitParams, rng: &mut LevelRng) -> Vec<Arrow> {
    let mut borders = Vec::new();
    for (x, y, c) in grid::cells(&grid::to_rows(&layout.cells)) {
        if matches!(c, '.' | '~') {
            for d in [Dir::D, Dir::R] {
                if let Some((nx, ny)) = layout.neighbour(x, y, d)
                    && matches!(layout.at(nx, ny), '.' | '~')
                {
                    borders.push((x, y, d));
                }
            }
        }
    }
    let mut one_ways = Vec::new();
    for _ in 0..rng.range(params.one_ways.0, params.one_ways.1) {
        if borders.is_empty() {
            break;
        }
        let (x, y, d) = borders.swap_remove(rng.index(borders.len()));
        one_ways.push(if rng.chance(1, 2) {
            Arrow { x, y, dir: d }
        } else {
            let (nx, ny) = layout.neighbour(x, y, d).expect("border has two cells");
            Arrow {
                x: nx,
                y: ny,
                dir: d.opposite(),
            }
        });
    }
    one_ways.sort_by_key(|a| (a.y, a.x, a.dir.index()));
    one_ways
}

/// Fruit pairs by Tom Atom's weights (fixed once per level); partners never start
/// next to each other.
fn place_fruit(
    layout: &mut Layout,
    params: &FruitParams,
    rng: &mut LevelRng,
) -> Result<(), Rejection> {
    let end_bonus = rng.range(0, 2);
    let corner_bonus = rng.range(0, 2);
    let weight = move |spot: Spot| match spot {
        Spot::CorridorEnd => 6 + end_bonus,
        Spot::Corner => 3 + corner_bonus,
        Spot::Corridor => 2,
        Spot::Open => 1,
        Spot::Enclosed => 0,
    };
    let pairs = rng.range(params.pairs.0, params.pairs.1) as usize;
    for letter in FRUIT_LETTERS.chars().take(pairs) {
        let (x, y) = pick_cell(layout, rng, |spot, _| weight(spot))
            .ok_or(Rejection::Candidate("no room for fruit"))?;
        layout.cells[y][x] = letter;
        let apart = |spot: Spot, (cx, cy): (usize, usize)| {
            if cx.abs_diff(x) + cy.abs_diff(y) == 1 {
                0
            } else {
                weight(spot)
            }
        };
        let (px, py) =
            pick_cell(layout, rng, apart).ok_or(Rejection::Candidate("no room for fruit"))?;
        layout.cells[py][px] = letter;
    }
    Ok(())
}

fn place_stones(layout: &mut Layout, params: &FruitParams, rng: &mut LevelRng) {
    let weight = |spot: Spot, _| match spot {
        Spot::Open => 3,
        Spot::Corridor => 2,
        Spot::Corner | Spot::CorridorEnd => 1,
        Spot::Enclosed => 0,
    };
    for _ in 0..rng.range(params.stones.0, params.stones.1) {
        if let Some((x, y)) = pick_cell(layout, rng, weight) {
            layout.cells[y][x] = 'o';
        }
    }
}

/// Starts the level from a reachable board as far from any win as the tier allows,
/// keeping as many pairs in play as such boards have.
fn unsolve(
    level: FruitLevel,
    params: &FruitParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<FruitLevel, Rejection> {
    let (board, start) = Board::compile(&level);
    let graph = explore(&board, &start, limits)?;
    let dist = graph.distance_to_win();
    let colours = board.letters.len();
    let playable = |i: usize| {
        dist[i] != UNREACHABLE
            && !graph.is_win(i)
            && board.stones_expressible(rules::packed_stones(graph.key(i), colours))
    };
    // The target is the largest distance within the cap that a playable board has: the
    // distances are tried from the largest down, so that only the boards at the distance
    // tried are checked.
    let mut bound = params.target_par.1.unwrap_or(u32::MAX).min(UNREACHABLE - 1);
    let (target, at_target) = loop {
        let Some(distance) = dist.iter().copied().filter(|&d| d <= bound).max() else {
            return Err(Rejection::Candidate("unsolvable layout"));
        };
        let at: Vec<usize> = (0..graph.len())
            .filter(|&i| dist[i] == distance && playable(i))
            .collect();
        if !at.is_empty() {
            break (distance, at);
        }
        let Some(below) = distance.checked_sub(1) else {
            return Err(Rejection::Candidate("unsolvable layout"));
        };
        bound = below;
    };
    if target < params.target_par.0 {
        return Err(Rejection::Candidate("too easy"));
    }
    let most_pairs = at_target
        .iter()
        .map(|&i| rules::packed_pairs(graph.key(i), colours))
        .max()
        .unwrap_or(0);
    let choices: Vec<usize> = at_target
        .into_iter()
        .filter(|&i| rules::packed_pairs(graph.key(i), colours) == most_pairs)
        .collect();
    let &chosen = rng.pick(&choices).expect("the target distance is attained");
    let state = rules::unpack_any(graph.key(chosen), start.len());
    Ok(with_movables(level, &board, &state))
}

/// The level with its fruit and stones moved to the given state.
fn with_movables(mut level: FruitLevel, board: &Board, state: &[u64]) -> FruitLevel {
    let mut cells: Vec<Vec<char>> = level
        .grid
        .iter()
        .map(|row| {
            row.chars()
                .map(|c| {
                    if c == 'o' || FRUIT_LETTERS.contains(c) {
                        '.'
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect();
    for (y, row) in cells.iter_mut().enumerate() {
        for (x, c) in row.iter_mut().enumerate() {
            let b = bit(cell_of(x, y));
            if let Some(i) = state.iter().position(|w| w & b != 0) {
                *c = board.letters.get(i).copied().unwrap_or('o');
            }
        }
    }
    level.grid = grid::to_rows(&cells);
    level
}
