//! Solver, replay and generator tests: hand-worked boards, and the solver checked against
//! a brute-force enumerator that knows nothing but the rules.

use super::rules::tests::{RING, RING_LINKS, SPLIT, cells_of, level};
use super::rules::{self, Board, is_solution};
use super::solver::{links_of, solve, steps_of};
use super::*;
use crate::core::{Difficulty, Dir, Stop};
use crate::rng::LevelRng;

fn limits(stop: &Stop) -> Limits<'_> {
    Limits {
        max_states: 10_000_000,
        stop,
    }
}

/// Exact solution count of a board (up to `cap`) by the solver.
fn count(rows: &[&str], cap: u64) -> u64 {
    let stop = Stop::never();
    solve(&Board::parse(&level(rows)), cap, 0, &limits(&stop))
        .unwrap()
        .count
}

/// Brute force: every set of steps in which each empty cell has exactly two and each
/// node exactly its number, enumerated edge by edge with no other pruning; each one is
/// turned into links and judged by the rule checker of `rules.rs`.
fn brute_force(board: &Board) -> u64 {
    let mut edges = Vec::new();
    for a in 0..board.cells() {
        for d in [Dir::R, Dir::D] {
            if let Some(b) = board.neighbour(a, d)
                && !(board.is_node(a) && board.is_node(b))
            {
                edges.push((a, b, d));
            }
        }
    }
    let need: Vec<u8> = (0..board.cells())
        .map(|c| if board.is_node(c) { board.number[c] } else { 2 })
        .collect();
    // Edges left per vertex, to stop as soon as a vertex can no longer reach its need.
    let mut left = vec![0u8; board.cells()];
    for &(a, b, _) in &edges {
        left[a] += 1;
        left[b] += 1;
    }
    let mut steps = vec![0u8; board.cells()];
    let mut degree = vec![0u8; board.cells()];
    let mut total = 0;
    enumerate(board, &edges, 0, &need, &mut left, &mut degree, &mut steps, &mut total);
    total
}

#[allow(clippy::too_many_arguments)]
fn enumerate(
    board: &Board,
    edges: &[(usize, usize, Dir)],
    i: usize,
    need: &[u8],
    left: &mut [u8],
    degree: &mut [u8],
    steps: &mut [u8],
    total: &mut u64,
) {
    let Some(&(a, b, d)) = edges.get(i) else {
        if degree == need && judge(board, steps) {
            *total += 1;
        }
        return;
    };
    left[a] -= 1;
    left[b] -= 1;
    // Off.
    if degree[a] + left[a] >= need[a] && degree[b] + left[b] >= need[b] {
        enumerate(board, edges, i + 1, need, left, degree, steps, total);
    }
    // On.
    if degree[a] < need[a] && degree[b] < need[b] {
        degree[a] += 1;
        degree[b] += 1;
        steps[a] |= 1 << d.index();
        steps[b] |= 1 << d.opposite().index();
        enumerate(board, edges, i + 1, need, left, degree, steps, total);
        steps[a] &= !(1 << d.index());
        steps[b] &= !(1 << d.opposite().index());
        degree[a] -= 1;
        degree[b] -= 1;
    }
    left[a] += 1;
    left[b] += 1;
}

/// Whether degree-correct steps are a solution: every chain from a node must end at a
/// node (no loops of empty cells), then the rule checker decides.
fn judge(board: &Board, steps: &[u8]) -> bool {
    let links = links_of(board, steps);
    let on_links: usize = links.iter().map(|l| l.len() - 2).sum();
    // Cells on no link from a node are on a closed loop of empty cells.
    on_links == board.empty_cells() && is_solution(board, &links)
}

/// Boards for the cross-check: grown boards (each has a solution), and the same boards
/// with one node's number changed or one empty cell made a 1 (mostly none or several).
fn cross_check_boards(size: u32, seeds: std::ops::Range<u64>) -> Vec<Board> {
    let mut boards = Vec::new();
    for seed in seeds {
        let mut rng = LevelRng::from_u64(seed);
        let Some(board) = super::generator::grown_board(size, &mut rng) else {
            continue;
        };
        let mut bumped = board.clone();
        let nodes: Vec<usize> = (0..board.cells()).filter(|&c| board.is_node(c)).collect();
        let node = nodes[rng.index(nodes.len())];
        bumped.number[node] = if bumped.number[node] > 1 { bumped.number[node] - 1 } else { 2 };
        let mut extra = board.clone();
        let empty: Vec<usize> = (0..board.cells()).filter(|&c| !board.is_node(c)).collect();
        extra.number[empty[rng.index(empty.len())]] = 1;
        boards.extend([board, bumped, extra]);
    }
    boards
        .into_iter()
        .filter(|b| rules::validate(&level_of(b)).is_ok())
        .collect()
}

fn level_of(board: &Board) -> HashiLevel {
    HashiLevel {
        width: board.n,
        height: board.n,
        grid: board.to_grid(),
    }
}

/// The heart of the uniqueness guarantee: on every board the solver's count (uncapped
/// here) equals the brute-force count, so no pruning ever cuts a solution away.
#[test]
fn solver_counts_agree_with_brute_force_on_small_boards() {
    let stop = Stop::never();
    let mut checked = [0u32; 3];
    for size in [4u32, 5] {
        for board in cross_check_boards(size, 0..60) {
            let expected = brute_force(&board);
            let found = solve(&board, u64::MAX, 0, &limits(&stop)).unwrap().count;
            assert_eq!(found, expected, "{:?}", board.to_grid());
            checked[expected.min(2) as usize] += 1;
        }
    }
    eprintln!("cross-checked boards by count 0/1/2+: {checked:?}");
    // The sample covers boards with none, one and several solutions.
    assert!(checked.iter().all(|&c| c >= 5), "{checked:?}");
}

/// Random sparse boards: a few nodes with random numbers, wide open areas with many
/// drawings, loops and links back to their own node everywhere.
fn sparse_boards(size: usize, count: usize, seed: u64) -> Vec<Board> {
    let mut rng = LevelRng::from_u64(seed);
    let mut boards = Vec::new();
    while boards.len() < count {
        let mut board = Board {
            n: size,
            number: vec![0; size * size],
        };
        for _ in 0..rng.range(2, 5) {
            let cell = rng.index(size * size);
            board.number[cell] = rng.range(1, 4) as u8;
        }
        if rules::validate(&level_of(&board)).is_ok() {
            boards.push(board);
        }
    }
    boards
}

#[test]
fn solver_counts_agree_with_brute_force_on_sparse_boards() {
    let stop = Stop::never();
    let (mut solvable, mut most) = (0, 0);
    for board in sparse_boards(4, 150, 1).into_iter().chain(sparse_boards(5, 40, 2)) {
        let expected = brute_force(&board);
        let found = solve(&board, u64::MAX, 0, &limits(&stop)).unwrap().count;
        assert_eq!(found, expected, "{:?}", board.to_grid());
        solvable += usize::from(expected > 0);
        most = most.max(expected);
    }
    eprintln!("sparse boards: {solvable} solvable, most solutions {most}");
    assert!(solvable >= 10 && most >= 20);
}

/// The long cross-check (`cargo test --release -- --ignored cross_check_long`).
#[test]
#[ignore]
fn cross_check_long() {
    let stop = Stop::never();
    let mut boards = Vec::new();
    for size in [4, 5, 6] {
        boards.extend(cross_check_boards(size, 1000..1800));
    }
    boards.extend(sparse_boards(4, 3000, 7));
    boards.extend(sparse_boards(5, 600, 8));
    let mut by_count = [0u32; 3];
    for board in &boards {
        let expected = brute_force(board);
        let found = solve(board, u64::MAX, 0, &limits(&stop)).unwrap().count;
        assert_eq!(found, expected, "{:?}", board.to_grid());
        by_count[expected.min(2) as usize] += 1;
    }
    eprintln!("{} boards, by count 0/1/2+: {by_count:?}", boards.len());
}

#[test]
fn ring_board_solution_is_found_and_replays() {
    let lv = level(&RING);
    let stop = Stop::never();
    let a = Hashi::analyze(&lv, &limits(&stop)).unwrap();
    let board = Board::parse(&lv);
    assert!(a.solution_count >= 1);
    assert_eq!(a.par, Some(5));
    let moves: HashiMoves = a
        .solution
        .unwrap()
        .iter()
        .map(|l| l.iter().map(|&[x, y]| [x as i64, y as i64]).collect())
        .collect();
    let r = Hashi::replay(&lv, &moves).unwrap();
    assert_eq!((r.status, r.moves_used), (Status::Won, 5));
    assert_eq!(brute_force(&board), a.solution_count.max(brute_force(&board)));
    let links: Vec<Vec<usize>> = RING_LINKS.iter().map(|l| cells_of(&board, l)).collect();
    assert_eq!(links_of(&board, &steps_of(&board, &links)).len(), 5);
}

#[test]
fn split_board_has_no_solution() {
    assert_eq!(count(&SPLIT, 100), 0);
    assert_eq!(brute_force(&Board::parse(&level(&SPLIT))), 0);
}

/// A drawing as text: nodes as digits, cells as `o`, steps as `-` and `|`.
pub fn sketch(board: &Board, steps: &[u8]) -> String {
    let n = board.n;
    let mut out = String::new();
    for y in 0..n {
        let mut row = String::new();
        let mut below = String::new();
        for x in 0..n {
            let c = board.cell(x, y);
            row.push(if board.is_node(c) { char::from(b'0' + board.number[c]) } else { 'o' });
            row.push(if steps[c] & (1 << Dir::R.index()) != 0 { '-' } else { ' ' });
            below.push(if steps[c] & (1 << Dir::D.index()) != 0 { '|' } else { ' ' });
            below.push(' ');
        }
        out.push_str(&row);
        out.push('\n');
        out.push_str(&below);
        out.push('\n');
    }
    out
}

/// Per tier: the spread of the difficulty figures over generated levels
/// (`cargo test --release -- --ignored metric_spread --nocapture`).
#[test]
#[ignore]
fn metric_spread() {
    use crate::game::generate_level;
    use std::collections::BTreeMap;
    for d in Difficulty::ALL {
        let (mut waves, mut pars, mut guesses) = (vec![], vec![], vec![]);
        let mut techniques = BTreeMap::new();
        for seed in 0..200 {
            let a = generate_level::<Hashi>(d, seed, &Stop::never()).unwrap();
            waves.push(a.analysis.extra.waves);
            pars.push(a.par);
            guesses.push(a.analysis.extra.guesses);
            *techniques.entry(format!("{:?}", a.analysis.extra.technique)).or_insert(0) += 1;
        }
        for v in [&mut waves, &mut pars] {
            v.sort_unstable();
        }
        guesses.sort_unstable();
        let q = |v: &[u32]| (v[0], v[v.len() / 4], v[v.len() / 2], v[v.len() * 3 / 4], v[v.len() - 1]);
        println!(
            "{d}: par {:?} waves {:?} guesses>0 {} techniques {techniques:?}",
            q(&pars),
            q(&waves),
            guesses.iter().filter(|&&g| g > 0).count()
        );
    }
}
