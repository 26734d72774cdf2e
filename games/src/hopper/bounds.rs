//! An admissible lower bound on the hops still needed to win, from the static tiles.
//!
//! Dirt only ever turns into water, so every landing possible in some state is possible
//! on the static tiles: distances there never exceed the real ones. The bound is the
//! shortest static tour from the hopper over the stars still to collect, ending on the
//! goal (Held-Karp over the stars, precomputed once per level).

use super::rules::{Board, unpack};
use crate::core::Dir;

/// A `dist` entry for "no way there".
const UNREACHED: u8 = u8::MAX;
/// A `tour` entry for "no such tour" (real tours are far shorter).
const NO_TOUR: u16 = u16::MAX / 2;

pub struct Bounds {
    cells: usize,
    goal: usize,
    all_stars: u16,
    star_cells: Vec<usize>,
    /// `dist[a * cells + b]`: fewest static hops from a to b, never passing through the
    /// goal (a real sequence ends there).
    dist: Vec<u8>,
    /// `tour[mask * stars + i]`: fewest static hops that start on star `i`, land on every
    /// star of `mask` (which holds `i`) and end on the goal.
    tour: Vec<u16>,
}

impl Bounds {
    /// Costs `cells^2` for the distances and `2^stars * stars^2` for the tours: a few
    /// thousand steps on served levels, about 17 million at the 16-star limit.
    pub fn new(board: &Board) -> Bounds {
        let mut bounds = Bounds {
            cells: board.cells(),
            goal: board.goal,
            all_stars: board.all_stars,
            star_cells: board.star_cells.clone(),
            dist: static_distances(board),
            tour: Vec::new(),
        };
        bounds.tour = bounds.static_tours();
        bounds
    }

    #[inline]
    fn distance(&self, from: usize, to: usize) -> u16 {
        match self.dist[from * self.cells + to] {
            UNREACHED => NO_TOUR,
            d => u16::from(d),
        }
    }

    fn static_tours(&self) -> Vec<u16> {
        let k = self.star_cells.len();
        let mut tour = vec![NO_TOUR; (1 << k) * k];
        for mask in 1usize..1 << k {
            for i in (0..k).filter(|&i| mask & (1 << i) != 0) {
                let rest = mask & !(1 << i);
                let from = self.star_cells[i];
                tour[mask * k + i] = if rest == 0 {
                    self.distance(from, self.goal)
                } else {
                    (0..k)
                        .filter(|&j| rest & (1 << j) != 0)
                        .map(|j| {
                            let leg = self.distance(from, self.star_cells[j]);
                            leg.saturating_add(tour[rest * k + j])
                        })
                        .min()
                        .unwrap_or(NO_TOUR)
                        .min(NO_TOUR)
                };
            }
        }
        tour
    }

    /// A lower bound on the hops still needed to win from `state`; `None` when no
    /// perfect sequence can follow.
    #[inline]
    pub fn lower_bound(&self, state: u128) -> Option<u32> {
        let (pos, stars, _) = unpack(state);
        let left = usize::from(self.all_stars & !stars);
        let best = if left == 0 {
            self.distance(pos, self.goal)
        } else {
            let k = self.star_cells.len();
            let mut best = NO_TOUR;
            let mut rest = left;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let leg = self.distance(pos, self.star_cells[i]);
                best = best.min(leg.saturating_add(self.tour[left * k + i]));
            }
            best
        };
        (best < NO_TOUR).then_some(u32::from(best))
    }
}

/// Breadth-first from every cell over the static landings.
fn static_distances(board: &Board) -> Vec<u8> {
    let n = board.cells();
    let mut dist = vec![UNREACHED; n * n];
    let mut queue = Vec::with_capacity(n);
    for from in 0..n {
        let row = &mut dist[from * n..(from + 1) * n];
        row[from] = 0;
        queue.clear();
        queue.push(from);
        let mut head = 0;
        while head < queue.len() {
            let at = queue[head];
            head += 1;
            if at == board.goal && at != from {
                continue;
            }
            for d in Dir::ALL {
                if let Some(to) = board.landing(at, d)
                    && row[to] == UNREACHED
                {
                    row[to] = row[at] + 1;
                    queue.push(to);
                }
            }
        }
    }
    dist
}
