//! The tetropica generator, Vestberg's improved method:
//! 1. obstacles first: S and E on opposite sides (at least `min_offset` rows or columns
//!    apart along them, so that paths are long enough for the tier's hand), then every
//!    other tile rolled in a random order, rock or destructible, with the tier's odds;
//! 2. a quick reachability check through destructible tiles before any solving (the
//!    report's own fix for its slow seeds);
//! 3. the distance matrix: breadth-first steps from E that never enter rock (Figure 4);
//! 4. the placement search over every piece and rotation: from the start's empty
//!    region, place the piece (any kind) that joins S and E if one does, else the one
//!    whose cells have the lowest total distance, until S and E are joined. The pieces
//!    used become the hand.
//!
//! The exact solver then decides: a candidate with a sub-solution (a win with fewer of
//! its pieces) is dropped here already, and the analysis proves the guarantees again.

use serde::Serialize;

use super::TetropicaLevel;
use super::rules::{Board, Hand, distance_matrix};
use super::solver::{Table, fewest_pieces};
use crate::core::{Difficulty, Limits, Rejection, Tier};
use crate::grid;
use crate::rng::LevelRng;

/// Generator parameters of one tier.
#[derive(Clone, Debug, Serialize)]
pub struct TetropicaParams {
    /// Board side (square boards).
    pub size: u32,
    /// Odds, per mille, that a rolled tile is indestructible rock.
    pub rock_per_mille: u32,
    /// Hand sizes the placement search may end with: the par window.
    pub pieces: (u32, u32),
    /// Whether the level must have exactly one solution.
    pub unique: bool,
    /// Fewest rows (or columns) between S and E along their opposite sides.
    pub min_offset: u32,
}

pub fn tier(difficulty: Difficulty) -> Tier<TetropicaParams> {
    let (size, rock_per_mille, pieces, unique, min_offset) = match difficulty {
        Difficulty::Easy => (5, 250, (2, 3), false, 2),
        Difficulty::Medium => (7, 350, (3, 4), true, 4),
        Difficulty::Hard => (9, 380, (4, 5), true, 5),
        // `Custom` is never generated (`generate_level` refuses it); the match stays total.
        Difficulty::Expert | Difficulty::Custom => (11, 380, (5, 7), true, 7),
    };
    let mut requires =
        vec!["no sub-solution: the fewest pieces that win (min_pieces) is the whole hand"];
    if unique {
        requires.push("unique: exactly one set of placements wins (solution_count = 1)");
    }
    Tier {
        params: TetropicaParams {
            size,
            rock_per_mille,
            pieces,
            unique,
            min_offset,
        },
        par_min: pieces.0,
        par_max: Some(pieces.1),
        requires,
        max_attempts: 2000,
        max_states: 200_000,
    }
}

pub fn generate(
    params: &TetropicaParams,
    rng: &mut LevelRng,
    limits: &Limits,
) -> Result<TetropicaLevel, Rejection> {
    let mut level = roll_grid(params, rng);
    let board = Board::compile(&level);
    if board.flood(board.start, board.tiles | board.empty) & board.end == 0 {
        return Err(Rejection::Candidate("no path through destructible tiles"));
    }
    let table = Table::build(&board);
    let hand = place_greedily(&board, &table, params.pieces.1, rng)?;
    if hand.total() < params.pieces.0 {
        return Err(Rejection::Candidate("placement search path too short"));
    }
    level.pieces = hand.letters();
    let board = Board::compile(&level);
    if fewest_pieces(&board, &table, hand.total().saturating_sub(1), limits)?.is_some() {
        return Err(Rejection::Candidate("sub-solution"));
    }
    Ok(level)
}

/// S and E on opposite sides, then every other tile rolled in a random order.
/// (Independent rolls make the order irrelevant to the odds; it is the report's.)
fn roll_grid(params: &TetropicaParams, rng: &mut LevelRng) -> TetropicaLevel {
    let n = params.size as usize;
    let mut cells = vec![vec!['o'; n]; n];
    let (a, b) = loop {
        let (a, b) = (rng.index(n), rng.index(n));
        if a.abs_diff(b) >= (params.min_offset as usize).min(n - 1) {
            break (a, b);
        }
    };
    let (mut start, mut end) = if rng.chance(1, 2) {
        ((0, a), (n - 1, b))
    } else {
        ((a, 0), (b, n - 1))
    };
    if rng.chance(1, 2) {
        (start, end) = (end, start);
    }
    cells[start.1][start.0] = 'S';
    cells[end.1][end.0] = 'E';
    let mut order: Vec<(usize, usize)> = (0..n)
        .flat_map(|y| (0..n).map(move |x| (x, y)))
        .filter(|&cell| cell != start && cell != end)
        .collect();
    rng.shuffle(&mut order);
    for (x, y) in order {
        if rng.chance(params.rock_per_mille, 1000) {
            cells[y][x] = '#';
        }
    }
    TetropicaLevel {
        width: n,
        height: n,
        grid: grid::to_rows(&cells),
        pieces: String::new(),
    }
}

/// The report's placement search over all pieces and rotations, scored by the distance
/// matrix; the pieces it used, or why it failed.
fn place_greedily(
    board: &Board,
    table: &Table,
    max_pieces: u32,
    rng: &mut LevelRng,
) -> Result<Hand, Rejection> {
    let distance = distance_matrix(board, false);
    // Tiles cut off from E get a distance no useful placement has.
    let score = |mask: u128| -> u32 {
        super::rules::bits(mask)
            .map(|cell| distance[cell].unwrap_or(1000))
            .sum()
    };
    let mut region = board.flood(board.start, board.empty);
    let mut used = Hand::default();
    let mut best = Vec::new();
    while region & board.end == 0 {
        if used.total() == max_pieces {
            return Err(Rejection::Candidate("placement search path too long"));
        }
        // (joins S and E?, score) of the best placements so far, and those placements.
        let mut best_key = (false, u32::MAX);
        best.clear();
        for (i, p) in table.list.iter().enumerate() {
            if p.mask & region != 0 || p.halo & region == 0 {
                continue;
            }
            let grown = board.flood(
                region | p.mask,
                board.empty | (region & board.tiles) | p.mask,
            );
            let key = (grown & board.end != 0, score(p.mask));
            let better = (key.0 && !best_key.0) || (key.0 == best_key.0 && key.1 < best_key.1);
            if better {
                best_key = key;
                best.clear();
            }
            if better || key == best_key {
                best.push((i, grown));
            }
        }
        let Some(&(i, grown)) = rng.pick(&best) else {
            return Err(Rejection::Candidate("placement search stuck"));
        };
        used = used.with(table.list[i].kind);
        region = grown;
    }
    Ok(used)
}
