//! The skiddy generator, on the designers' own inputs (their part 4): board size, up to
//! two extra movable kinds beside the reds and their counts, a share of statics in the
//! inner area, exits per colour and whether colours may neighbour, and the move window
//! for perfect. A placement is drawn from those; then its whole state graph is explored
//! and the level starts from a position of that graph that already passes the three
//! rules of correctness with its par in the window ("un-solving": every skiddy still in
//! play, nothing in a pit, no dead end reachable, combo par equal to par, breakable where
//! a colour has two or more skiddies). The pipeline analyses the result again from
//! scratch and accepts it only by the same rules.

use serde::Serialize;

use super::SkiddyLevel;
use super::rules::{
    Board, CRATE, GOAL_LETTERS, ICE, RED, STRIDE, State, bit, cell_of, char_of_kind, connected,
};
use super::solver::{self, Graph, UNREACHABLE};
use crate::core::{Difficulty, Dir, Limits, Rejection, Tier};
use crate::rng::LevelRng;

/// Generator parameters of one tier; `(min, max)` pairs are inclusive ranges.
#[derive(Clone, Debug, Serialize)]
pub struct SkiddyParams {
    /// Board width, border included (5..=8).
    pub width: (u32, u32),
    /// Board height, border included (4..=7).
    pub height: (u32, u32),
    /// Red skiddies: always present, at least two.
    pub red: (u32, u32),
    /// How many extra movable kinds join the reds (the designers allow up to two).
    pub extra_kinds: (u32, u32),
    /// The extra kinds on offer and their counts when drawn (max 0: not on offer).
    pub yellow: (u32, u32),
    pub crates: (u32, u32),
    pub ice: (u32, u32),
    /// Share of the inner cells made static, in per mille.
    pub statics_permille: (u32, u32),
    /// Per mille of those statics that are pits rather than blocks.
    pub pits_permille: u32,
    /// Goals per colour.
    pub exits_per_colour: (u32, u32),
    /// Whether goals of different colours may stand side by side on the border.
    pub mixed_neighbours: bool,
    /// The move window for perfect the start is chosen in (the tier's par window,
    /// bounded above where the tier has no bound).
    pub perfect_moves: (u32, u32),
}

pub fn tier(difficulty: Difficulty) -> Tier<SkiddyParams> {
    // The par window is the perfect-move window, open above at expert.
    let (params, par_max, max_states) = match difficulty {
        Difficulty::Easy => (EASY, Some(4), 50_000),
        Difficulty::Medium => (MEDIUM, Some(6), 100_000),
        Difficulty::Hard => (HARD, Some(9), 40_000),
        // `Custom` is never generated (`generate_level` refuses it); the match stays total.
        Difficulty::Expert | Difficulty::Custom => (EXPERT, None, 40_000),
    };
    Tier {
        par_min: params.perfect_moves.0,
        par_max,
        params,
        requires: vec![
            "no dead ends: every reachable state can still win",
            "combo_par == par (perfect): a shortest solution can clear every colour in a single move",
            "breakable where a colour has two or more skiddies: some win clears a colour in several moves",
        ],
        max_attempts: 200,
        max_states,
    }
}

const EASY: SkiddyParams = SkiddyParams {
    width: (5, 6),
    height: (4, 5),
    red: (2, 3),
    extra_kinds: (0, 1),
    yellow: (2, 2),
    crates: (0, 0),
    ice: (1, 1),
    statics_permille: (0, 150),
    pits_permille: 0,
    exits_per_colour: (1, 2),
    mixed_neighbours: true,
    perfect_moves: (2, 4),
};

const MEDIUM: SkiddyParams = SkiddyParams {
    width: (6, 7),
    height: (5, 6),
    red: (2, 3),
    extra_kinds: (1, 1),
    yellow: (2, 3),
    crates: (1, 1),
    ice: (1, 1),
    statics_permille: (50, 200),
    pits_permille: 300,
    exits_per_colour: (1, 2),
    mixed_neighbours: true,
    perfect_moves: (4, 6),
};

const HARD: SkiddyParams = SkiddyParams {
    width: (6, 8),
    height: (5, 7),
    red: (2, 3),
    extra_kinds: (1, 2),
    yellow: (2, 3),
    crates: (1, 2),
    ice: (1, 1),
    statics_permille: (100, 200),
    pits_permille: 300,
    exits_per_colour: (1, 1),
    mixed_neighbours: false,
    perfect_moves: (7, 9),
};

const EXPERT: SkiddyParams = SkiddyParams {
    width: (7, 8),
    height: (6, 7),
    red: (2, 3),
    extra_kinds: (2, 2),
    yellow: (2, 3),
    crates: (1, 1),
    ice: (1, 1),
    statics_permille: (150, 250),
    pits_permille: 300,
    exits_per_colour: (1, 1),
    mixed_neighbours: false,
    perfect_moves: (10, 14),
};

/// A board under construction: rows of grid characters.
struct Layout {
    w: usize,
    h: usize,
    cells: Vec<Vec<char>>,
}

impl Layout {
    fn empty(w: usize, h: usize) -> Layout {
        let cells = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| {
                        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                            '#'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect();
        Layout { w, h, cells }
    }

    fn inner(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (1..self.h - 1).flat_map(move |y| (1..self.w - 1).map(move |x| (x, y)))
    }

    /// Inner cells holding `c`, in reading order.
    fn inner_with(&self, c: char) -> Vec<(usize, usize)> {
        self.inner()
            .filter(|&(x, y)| self.cells[y][x] == c)
            .collect()
    }

    /// Whether the non-block inner cells form one orthogonally connected area.
    fn free_area_connected(&self) -> bool {
        let free = self
            .inner()
            .filter(|&(x, y)| self.cells[y][x] != '#')
            .fold(0u32, |acc, (x, y)| acc | bit(cell_of(x, y)));
        free == 0 || connected(1 << free.trailing_zeros(), free) == free
    }

    fn to_level(&self) -> SkiddyLevel {
        SkiddyLevel {
            width: self.w,
            height: self.h,
            grid: self.cells.iter().map(|r| r.iter().collect()).collect(),
        }
    }
}

pub fn generate(
    params: &SkiddyParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<SkiddyLevel, Rejection> {
    let w = rng.range(params.width.0, params.width.1) as usize;
    let h = rng.range(params.height.0, params.height.1) as usize;
    let mut layout = Layout::empty(w, h);
    place_statics(&mut layout, params, rng);
    let kinds = draw_movables(params, rng);
    let colours: Vec<u8> = kinds.iter().map(|&(k, _)| k).filter(|&k| k < ICE).collect();
    place_goals(&mut layout, params, &colours, rng)?;
    place_movables(&mut layout, &kinds, rng)?;
    unsolve(&layout, params, rng, limits)
}

/// Blocks and pits over the share of the inner area, one at a time, never splitting
/// the free area in two.
fn place_statics(layout: &mut Layout, params: &SkiddyParams, rng: &mut LevelRng) {
    let inner = ((layout.w - 2) * (layout.h - 2)) as u32;
    let share = rng.range(params.statics_permille.0, params.statics_permille.1);
    let wanted = inner * share / 1000;
    for _ in 0..wanted {
        let floor = layout.inner_with('.');
        let Some(&(x, y)) = rng.pick(&floor) else {
            return;
        };
        let pit = rng.chance(params.pits_permille, 1000);
        layout.cells[y][x] = if pit { 'O' } else { '#' };
        if !pit && !layout.free_area_connected() {
            layout.cells[y][x] = '.';
        }
    }
}

/// The reds and the drawn extra kinds, as (piece code, count).
fn draw_movables(params: &SkiddyParams, rng: &mut LevelRng) -> Vec<(u8, u32)> {
    let mut kinds = vec![(RED, rng.range(params.red.0, params.red.1))];
    let mut offer: Vec<(u8, (u32, u32))> = [
        (RED + 1, params.yellow),
        (CRATE, params.crates),
        (ICE, params.ice),
    ]
    .into_iter()
    .filter(|&(_, (_, max))| max > 0)
    .collect();
    let extra = rng.range(params.extra_kinds.0, params.extra_kinds.1) as usize;
    for _ in 0..extra.min(offer.len()) {
        let (kind, (lo, hi)) = offer.remove(rng.index(offer.len()));
        kinds.push((kind, rng.range(lo, hi)));
    }
    kinds.sort_unstable();
    kinds
}

/// Where a goal can go: a border cell (not a corner) in front of a free inner cell,
/// with the direction from that inner cell to the goal.
fn goal_spots(layout: &Layout) -> Vec<(usize, usize, Dir)> {
    let (w, h) = (layout.w, layout.h);
    let mut spots = Vec::new();
    for x in 1..w - 1 {
        spots.push((x, 0, Dir::U));
        spots.push((x, h - 1, Dir::D));
    }
    for y in 1..h - 1 {
        spots.push((0, y, Dir::L));
        spots.push((w - 1, y, Dir::R));
    }
    spots.retain(|&(x, y, d)| {
        let (dx, dy) = d.delta();
        let (ix, iy) = ((x as i32 - dx) as usize, (y as i32 - dy) as usize);
        layout.cells[iy][ix] != '#'
    });
    spots
}

/// Goals per colour, favouring spots a lone skiddy can come to rest in front of (the
/// inner cell has a wall across the border line), and keeping different colours apart
/// unless the tier allows neighbours.
fn place_goals(
    layout: &mut Layout,
    params: &SkiddyParams,
    colours: &[u8],
    rng: &mut LevelRng,
) -> Result<(), Rejection> {
    for &colour in colours {
        let letter = GOAL_LETTERS[(colour - RED) as usize];
        for _ in 0..rng.range(params.exits_per_colour.0, params.exits_per_colour.1) {
            let spots = goal_spots(layout);
            let weights: Vec<u32> = spots
                .iter()
                .map(|&spot| goal_weight(layout, params, letter, spot))
                .collect();
            let Some(i) = rng.weighted(&weights) else {
                return Err(Rejection::Candidate("no room for a goal"));
            };
            let (x, y, _) = spots[i];
            layout.cells[y][x] = letter;
        }
    }
    Ok(())
}

fn goal_weight(
    layout: &Layout,
    params: &SkiddyParams,
    letter: char,
    spot: (usize, usize, Dir),
) -> u32 {
    let (x, y, d) = spot;
    if layout.cells[y][x] != '#' {
        return 0;
    }
    let neighbours = [(0i32, -1i32), (0, 1), (-1, 0), (1, 0)]
        .into_iter()
        .map(|(dx, dy)| (x as i32 + dx, y as i32 + dy))
        .filter(|&(nx, ny)| {
            nx >= 0 && ny >= 0 && (nx as usize) < layout.w && (ny as usize) < layout.h
        })
        .map(|(nx, ny)| layout.cells[ny as usize][nx as usize]);
    let clash = neighbours
        .filter(|&c| GOAL_LETTERS.contains(&c))
        .any(|c| c != letter);
    if clash && !params.mixed_neighbours {
        return 0;
    }
    let (dx, dy) = d.delta();
    let (ix, iy) = ((x as i32 - dx) as usize, (y as i32 - dy) as usize);
    // A wall (block, border or goal) across the line along the border stops a skiddy
    // sliding along it right in front of the goal.
    let rests = [(dy, dx), (-dy, -dx)].into_iter().any(|(px, py)| {
        let c = layout.cells[(iy as i32 + py) as usize][(ix as i32 + px) as usize];
        c == '#' || GOAL_LETTERS.contains(&c)
    });
    if rests { 4 } else { 1 }
}

/// Movables on free floor (never in a pit: the grid has no symbol for that).
fn place_movables(
    layout: &mut Layout,
    kinds: &[(u8, u32)],
    rng: &mut LevelRng,
) -> Result<(), Rejection> {
    for &(kind, count) in kinds {
        for _ in 0..count {
            let floor = layout.inner_with('.');
            let &(x, y) = rng
                .pick(&floor)
                .ok_or(Rejection::Candidate("no room for the movables"))?;
            layout.cells[y][x] = char_of_kind(kind);
        }
    }
    Ok(())
}

/// Picks the start: a position reachable from the placement with every skiddy in play
/// and nothing in a pit, from which the level is fair and its par in the move window.
fn unsolve(
    layout: &Layout,
    params: &SkiddyParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<SkiddyLevel, Rejection> {
    let placed = layout.to_level();
    let (board, start) = Board::compile(&placed);
    let graph = solver::explore(&board, start, limits)?;
    let fair = fair_starts(&graph, &board, start);
    let (lo, hi) = params.perfect_moves;
    let mut pars: Vec<u32> = fair
        .iter()
        .map(|&(_, par)| par)
        .filter(|p| (lo..=hi).contains(p))
        .collect();
    pars.sort_unstable();
    pars.dedup();
    let Some(&par) = rng.pick(&pars) else {
        return Err(Rejection::Candidate("no fair start in the window"));
    };
    let at_par: Vec<usize> = fair
        .iter()
        .filter(|&&(_, p)| p == par)
        .map(|&(i, _)| i)
        .collect();
    let &chosen = rng.pick(&at_par).expect("the par was drawn from these");
    Ok(with_movables(layout, graph.state(chosen)))
}

/// Every state that would make a fair level if the level started there, with its par.
fn fair_starts(graph: &Graph, board: &Board, start: State) -> Vec<(usize, u32)> {
    let full = solver::colour_counts(start);
    let preds = graph.predecessors();
    let n = graph.len();
    let wins = || (0..n).filter(|&i| graph.is_win(i));
    let dist = graph.distances_to(&preds, wins(), |_| true);
    let combo = graph.distances_to(&preds, wins(), |i| graph.is_intact(i));
    let dead = (0..n).filter(|&i| !graph.is_win(i) && dist[i] == UNREACHABLE);
    let doomed = graph.distances_to(&preds, dead, |_| true);
    let broken = (0..n).filter(|&i| !graph.is_intact(i) && dist[i] != UNREACHABLE);
    let can_break = graph.distances_to(&preds, broken, |_| true);
    let needs_break = full.iter().any(|&k| k >= 2);
    (0..n)
        .filter(|&i| {
            let state = graph.state(i);
            !graph.is_win(i)
                && solver::colour_counts(state) == full
                && state.occupied() & board.pits == 0
                && doomed[i] == UNREACHABLE
                && dist[i] != UNREACHABLE
                && combo[i] == dist[i]
                && (!needs_break || can_break[i] != UNREACHABLE)
        })
        .map(|i| (i, dist[i]))
        .collect()
}

/// The layout with its movables moved to `state`.
fn with_movables(layout: &Layout, state: State) -> SkiddyLevel {
    let mut level = layout.to_level();
    let mut rows: Vec<Vec<char>> = layout
        .cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|&c| if "rybgci".contains(c) { '.' } else { c })
                .collect()
        })
        .collect();
    for cell in 0..(STRIDE * 5) {
        let kind = state.kind_at(cell);
        if kind != 0 {
            let (x, y) = (cell % STRIDE + 1, cell / STRIDE + 1);
            rows[y][x] = char_of_kind(kind);
        }
    }
    level.grid = rows.into_iter().map(|r| r.into_iter().collect()).collect();
    level
}
