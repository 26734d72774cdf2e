//! The Hopper blog post's method #3, "waypoints": fill with water, place a few waypoints between
//! a start on the bottom row and a goal on the top row, join them in sequence by bridges
//! of one or two straight segments (horizontal-first or vertical-first at random), lay
//! the path with grass, dirt (cells it visits once) and arrows (cells it visits once and
//! goes straight through), put the stars on it (waypoints first), then scatter decoys.
//! The path is a perfect sequence by construction; the solver still proves every level.

use serde::Serialize;

use super::HopperLevel;
use super::rules::Tile;
use crate::core::{Difficulty, Dir, Rejection, Tier};
use crate::rng::LevelRng;

/// Generator parameters of one tier. All of them derive from `difficulty_permille` and
/// the board size by [`HopperParams::from_difficulty`]; `(min, max)` are inclusive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HopperParams {
    /// The blog post's difficulty 0..1, in per-mille (330 is 0.33).
    pub difficulty_permille: u32,
    /// Board width (columns) and height (rows): boards stand upright, the hopper
    /// starts on the bottom row and the goal stone is on the top row.
    pub width: u32,
    pub height: u32,
    /// Waypoints between the start and the goal.
    pub waypoints: (u32, u32),
    /// The spread: least Manhattan distance from one waypoint to the next.
    pub min_leg: u32,
    /// Odds per mille that a cell the path visits once becomes dirt.
    pub dirt_permille: u32,
    /// Odds per mille that a cell the path visits once and goes straight through
    /// becomes an arrow.
    pub arrow_permille: u32,
    pub stars: (u32, u32),
    /// Grass, dirt or arrow tiles scattered over the water off the path.
    pub decoys: (u32, u32),
    /// Candidates whose planned sequence is not this long are dropped before solving
    /// (the solver's par can only be shorter, never longer).
    pub planned_hops: (u32, u32),
}

impl HopperParams {
    /// The whole parameter set for a difficulty (0..=1000 per-mille) and board size.
    pub fn from_difficulty(
        difficulty_permille: u32,
        width: u32,
        height: u32,
        planned_hops: (u32, u32),
    ) -> HopperParams {
        let d = difficulty_permille.min(1000);
        let waypoints = d * 4 / 1000;
        let stars = 2 + d * 4 / 1000;
        let area = width * height;
        let decoys = area * (60 + d * 60 / 1000) / 1000;
        HopperParams {
            difficulty_permille: d,
            width,
            height,
            waypoints: (waypoints, waypoints + 1),
            min_leg: 2 + d * 3 / 1000,
            dirt_permille: 150 + d * 550 / 1000,
            arrow_permille: d * 350 / 1000,
            stars: (stars, stars + 1),
            decoys: (decoys, decoys + 2),
            planned_hops,
        }
    }
}

pub fn tier(difficulty: Difficulty) -> Tier<HopperParams> {
    let (permille, (w, h), par_min, par_max) = match difficulty {
        Difficulty::Easy => (0, (5, 7), 6, 10),
        Difficulty::Medium => (330, (6, 8), 10, 15),
        Difficulty::Hard => (660, (7, 9), 15, 21),
        // `Custom` is never generated (`generate_level` refuses it); the match stays total.
        Difficulty::Expert | Difficulty::Custom => (1000, (7, 11), 21, 36),
    };
    Tier {
        params: HopperParams::from_difficulty(permille, w, h, (par_min, par_max)),
        par_min,
        par_max: Some(par_max),
        requires: vec![
            "a perfect sequence exists: the solver's par is the length of the shortest",
            "the generator's planned sequence fits the par window before solving: par can only be shorter, and a par far shorter falls below the window",
        ],
        max_attempts: 400,
        max_states: 200_000,
    }
}

/// A candidate and the perfect sequence the generator laid for it.
pub struct Planned {
    pub level: HopperLevel,
    pub hops: Vec<Dir>,
}

pub fn generate(params: &HopperParams, rng: &mut LevelRng) -> Result<Planned, Rejection> {
    let (w, h) = (params.width as usize, params.height as usize);
    let start = (rng.index(w), h - 1);
    let goal = (rng.index(w), 0);
    let mut points = vec![start];
    for _ in 0..rng.range(params.waypoints.0, params.waypoints.1) {
        let last = *points.last().expect("the start is a point");
        points.push(pick_waypoint(w, h, last, params.min_leg as usize, rng)?);
    }
    points.push(goal);
    let path = bridges(&points, rng);
    let mut plan = Plan::new(w, h, &path);
    let stars = plan.place_stars(&points[1..points.len() - 1], params, rng);
    plan.place_arrows(&stars, params, rng);
    plan.place_dirt(params, rng);
    plan.scatter_decoys(params, rng);
    let planned = Planned {
        level: plan.level(&stars),
        hops: plan.hops(),
    };
    check_length(&planned, params)?;
    Ok(planned)
}

/// The generator's intent: a sequence as long as the tier's par window. The solver may
/// only find it shorter, and the window then rejects what is far too short.
fn check_length(planned: &Planned, params: &HopperParams) -> Result<(), Rejection> {
    let hops = planned.hops.len() as u32;
    if hops < params.planned_hops.0 {
        Err(Rejection::Candidate("planned path too short"))
    } else if hops > params.planned_hops.1 {
        Err(Rejection::Candidate("planned path too long"))
    } else {
        Ok(())
    }
}

/// A waypoint at least `min_leg` from the last point, never on the top row (so the
/// path meets the goal only at its end).
fn pick_waypoint(
    w: usize,
    h: usize,
    last: (usize, usize),
    min_leg: usize,
    rng: &mut LevelRng,
) -> Result<(usize, usize), Rejection> {
    let far: Vec<(usize, usize)> = (1..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| x.abs_diff(last.0) + y.abs_diff(last.1) >= min_leg)
        .collect();
    rng.pick(&far)
        .copied()
        .ok_or(Rejection::Candidate("no room for a waypoint"))
}

/// The cells of the path joining the points in sequence, each pair by one bridge.
fn bridges(points: &[(usize, usize)], rng: &mut LevelRng) -> Vec<(usize, usize)> {
    let mut path = vec![points[0]];
    for pair in points.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let corner = if rng.chance(1, 2) {
            (to.0, from.1)
        } else {
            (from.0, to.1)
        };
        walk(&mut path, corner);
        walk(&mut path, to);
    }
    path
}

/// Extends the path in a straight line to `to` (same row or column as its last cell).
fn walk(path: &mut Vec<(usize, usize)>, to: (usize, usize)) {
    let (mut x, mut y) = *path.last().expect("a path has a first cell");
    while (x, y) != to {
        if x != to.0 {
            x = if x < to.0 { x + 1 } else { x - 1 };
        } else {
            y = if y < to.1 { y + 1 } else { y - 1 };
        }
        path.push((x, y));
    }
}

fn step_dir(from: (usize, usize), to: (usize, usize)) -> Dir {
    match (to.0 as i32 - from.0 as i32, to.1 as i32 - from.1 as i32) {
        (0, -1) => Dir::U,
        (0, 1) => Dir::D,
        (-1, 0) => Dir::L,
        _ => Dir::R,
    }
}

/// The board under construction around the planned path.
struct Plan {
    w: usize,
    h: usize,
    tiles: Vec<Vec<Tile>>,
    path: Vec<(usize, usize)>,
    visits: Vec<Vec<u32>>,
}

impl Plan {
    fn new(w: usize, h: usize, path: &[(usize, usize)]) -> Plan {
        let mut tiles = vec![vec![Tile::Water; w]; h];
        let mut visits = vec![vec![0; w]; h];
        for &(x, y) in path {
            tiles[y][x] = Tile::Grass;
            visits[y][x] += 1;
        }
        let &(gx, gy) = path.last().expect("the path ends on the goal");
        tiles[gy][gx] = Tile::Goal;
        Plan {
            w,
            h,
            tiles,
            path: path.to_vec(),
            visits,
        }
    }

    fn start(&self) -> (usize, usize) {
        self.path[0]
    }

    fn goal(&self) -> (usize, usize) {
        *self.path.last().expect("the path ends on the goal")
    }

    /// Path cells that may carry a star: not the start, not the goal; waypoints first,
    /// then the rest in path order, each once.
    fn place_stars(
        &self,
        waypoints: &[(usize, usize)],
        params: &HopperParams,
        rng: &mut LevelRng,
    ) -> Vec<(usize, usize)> {
        let eligible = |c: &(usize, usize)| *c != self.start() && *c != self.goal();
        let mut firsts: Vec<(usize, usize)> = Vec::new();
        for &c in waypoints.iter().filter(|c| eligible(c)) {
            if !firsts.contains(&c) {
                firsts.push(c);
            }
        }
        let mut others: Vec<(usize, usize)> = Vec::new();
        for &c in self.path.iter().filter(|c| eligible(c)) {
            if !firsts.contains(&c) && !others.contains(&c) {
                others.push(c);
            }
        }
        rng.shuffle(&mut firsts);
        rng.shuffle(&mut others);
        let count = rng.range(params.stars.0, params.stars.1) as usize;
        let mut stars: Vec<(usize, usize)> = firsts.into_iter().chain(others).take(count).collect();
        stars.sort_unstable_by_key(|&(x, y)| (y, x));
        stars
    }

    /// Arrows where the path visits once and goes straight on, never under a star.
    fn place_arrows(
        &mut self,
        stars: &[(usize, usize)],
        params: &HopperParams,
        rng: &mut LevelRng,
    ) {
        for i in 1..self.path.len() - 1 {
            let (prev, here, next) = (self.path[i - 1], self.path[i], self.path[i + 1]);
            let d = step_dir(here, next);
            if step_dir(prev, here) != d
                || self.visits[here.1][here.0] != 1
                || stars.contains(&here)
                || here == self.start()
            {
                continue;
            }
            if rng.chance(params.arrow_permille, 1000) {
                self.tiles[here.1][here.0] = Tile::Arrow(d);
            }
        }
    }

    /// Dirt on grass the path visits once (never the start).
    fn place_dirt(&mut self, params: &HopperParams, rng: &mut LevelRng) {
        for i in 1..self.path.len() - 1 {
            let (x, y) = self.path[i];
            if self.tiles[y][x] == Tile::Grass
                && self.visits[y][x] == 1
                && rng.chance(params.dirt_permille, 1000)
            {
                self.tiles[y][x] = Tile::Dirt;
            }
        }
    }

    /// Grass, dirt or arrow tiles on random water cells (the path is never touched).
    fn scatter_decoys(&mut self, params: &HopperParams, rng: &mut LevelRng) {
        for _ in 0..rng.range(params.decoys.0, params.decoys.1) {
            let water: Vec<(usize, usize)> = (0..self.h)
                .flat_map(|y| (0..self.w).map(move |x| (x, y)))
                .filter(|&(x, y)| self.tiles[y][x] == Tile::Water)
                .collect();
            let Some(&(x, y)) = rng.pick(&water) else {
                return;
            };
            self.tiles[y][x] = if rng.chance(params.arrow_permille, 2000) {
                Tile::Arrow(Dir::ALL[rng.index(4)])
            } else if rng.chance(params.dirt_permille, 1000) {
                Tile::Dirt
            } else {
                Tile::Grass
            };
        }
    }

    /// The planned perfect sequence: one hop per path step, except the step off an
    /// arrow, which is the arrow's slide.
    fn hops(&self) -> Vec<Dir> {
        self.path
            .windows(2)
            .filter(|pair| !matches!(self.tiles[pair[0].1][pair[0].0], Tile::Arrow(_)))
            .map(|pair| step_dir(pair[0], pair[1]))
            .collect()
    }

    fn level(&self, stars: &[(usize, usize)]) -> HopperLevel {
        let (sx, sy) = self.start();
        let grid = self
            .tiles
            .iter()
            .enumerate()
            .map(|(y, row)| {
                row.iter()
                    .enumerate()
                    .map(|(x, &t)| {
                        if (x, y) == (sx, sy) {
                            'S'
                        } else {
                            tile_char(t)
                        }
                    })
                    .collect()
            })
            .collect();
        HopperLevel {
            width: self.w,
            height: self.h,
            grid,
            stars: stars.iter().map(|&(x, y)| [x, y]).collect(),
        }
    }
}

fn tile_char(t: Tile) -> char {
    match t {
        Tile::Water => '~',
        Tile::Grass => '.',
        Tile::Dirt => ':',
        Tile::Arrow(d) => Tile::arrow_char(d),
        Tile::Goal => 'G',
    }
}
