//! Solver, replay and generator tests: hand-worked boards, the solver checked against a
//! brute-force enumerator that knows nothing but the rules, and properties of served
//! levels.

use proptest::prelude::*;

use super::rules::tests::{RING, RING_LINKS, SPLIT, cells_of, level};
use super::rules::{self, Board, is_solution};
use super::solver::{self, Technique, links_of, solve, steps_of};
use super::*;
use crate::core::{Difficulty, Dir, Stop};
use crate::game::generate_level;
use crate::rng::LevelRng;

fn limits(stop: &Stop) -> Limits<'_> {
    Limits {
        max_states: 10_000_000,
        stop,
    }
}

fn analyze(rows: &[&str]) -> Analysis<HashiSolution, HashiMetrics> {
    let stop = Stop::never();
    Hashi::analyze(&level(rows), &limits(&stop)).unwrap()
}

/// Exact solution count of a board by the solver, with no cap.
fn count(board: &Board) -> u64 {
    let stop = Stop::never();
    solve(board, u64::MAX, 0, &limits(&stop)).unwrap().count
}

fn points(links: &[&[(usize, usize)]]) -> HashiSolution {
    links
        .iter()
        .map(|l| l.iter().map(|&(x, y)| [x, y]).collect())
        .collect()
}

fn as_moves(solution: &HashiSolution) -> HashiMoves {
    solution
        .iter()
        .map(|l| l.iter().map(|&[x, y]| [x as i64, y as i64]).collect())
        .collect()
}

// ---------------------------------------------------------------------------------
// The brute-force reference.

/// Every drawing of a board, by brute force: all sets of steps in which each empty cell
/// has exactly two and each node exactly its number, enumerated edge by edge with no
/// other pruning, each turned into links and judged by the rule checker of `rules.rs`.
/// Returns the count and the first `keep` solutions.
fn brute_force(board: &Board, keep: usize) -> (u64, Vec<Vec<u8>>) {
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
    let mut left = vec![0u8; board.cells()];
    for &(a, b, _) in &edges {
        left[a] += 1;
        left[b] += 1;
    }
    let mut walk = BruteForce {
        board,
        edges,
        need,
        left,
        degree: vec![0; board.cells()],
        steps: vec![0; board.cells()],
        count: 0,
        keep,
        found: Vec::new(),
    };
    walk.enumerate(0);
    (walk.count, walk.found)
}

struct BruteForce<'a> {
    board: &'a Board,
    edges: Vec<(usize, usize, Dir)>,
    need: Vec<u8>,
    /// Undecided edges per vertex, to stop once a vertex can no longer reach its need.
    left: Vec<u8>,
    degree: Vec<u8>,
    steps: Vec<u8>,
    count: u64,
    keep: usize,
    found: Vec<Vec<u8>>,
}

impl BruteForce<'_> {
    fn enumerate(&mut self, i: usize) {
        let Some(&(a, b, d)) = self.edges.get(i) else {
            if self.degree == self.need && judge(self.board, &self.steps) {
                self.count += 1;
                if self.found.len() < self.keep {
                    self.found.push(self.steps.clone());
                }
            }
            return;
        };
        self.left[a] -= 1;
        self.left[b] -= 1;
        let room = |v: usize, s: &Self| s.degree[v] + s.left[v] >= s.need[v];
        if room(a, self) && room(b, self) {
            self.enumerate(i + 1);
        }
        if self.degree[a] < self.need[a] && self.degree[b] < self.need[b] {
            self.toggle(a, b, d, true);
            self.enumerate(i + 1);
            self.toggle(a, b, d, false);
        }
        self.left[a] += 1;
        self.left[b] += 1;
    }

    fn toggle(&mut self, a: usize, b: usize, d: Dir, on: bool) {
        let (ba, bb) = (1u8 << d.index(), 1u8 << d.opposite().index());
        if on {
            self.degree[a] += 1;
            self.degree[b] += 1;
            self.steps[a] |= ba;
            self.steps[b] |= bb;
        } else {
            self.degree[a] -= 1;
            self.degree[b] -= 1;
            self.steps[a] &= !ba;
            self.steps[b] &= !bb;
        }
    }
}

/// Whether degree-correct steps are a solution: the chains from the nodes must cover
/// every empty cell (the rest would be loops of cells), then the rule checker decides.
fn judge(board: &Board, steps: &[u8]) -> bool {
    let links = links_of(board, steps);
    let on_links: usize = links.iter().map(|l| l.len() - 2).sum();
    on_links == board.empty_cells() && is_solution(board, &links)
}

fn level_of(board: &Board) -> HashiLevel {
    HashiLevel {
        width: board.n,
        height: board.n,
        grid: board.to_grid(),
    }
}

/// Grown boards (each has a solution), and the same boards with one node's number
/// changed or one empty cell made a 1 (mostly none or several).
fn grown_boards(size: u32, seeds: std::ops::Range<u64>) -> Vec<Board> {
    let mut boards = Vec::new();
    for seed in seeds {
        let mut rng = LevelRng::from_u64(seed);
        let Some(board) = super::generator::grown_board(size, &mut rng) else {
            continue;
        };
        let mut bumped = board.clone();
        let nodes: Vec<usize> = (0..board.cells()).filter(|&c| board.is_node(c)).collect();
        let node = nodes[rng.index(nodes.len())];
        bumped.number[node] = if bumped.number[node] > 1 {
            bumped.number[node] - 1
        } else {
            2
        };
        let mut extra = board.clone();
        let empty: Vec<usize> = (0..board.cells()).filter(|&c| !board.is_node(c)).collect();
        extra.number[empty[rng.index(empty.len())]] = 1;
        boards.extend([board, bumped, extra]);
    }
    boards.retain(|b| rules::validate(&level_of(b)).is_ok());
    boards
}

/// Random sparse boards: a few nodes with random numbers and wide open areas, with many
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

/// Checks the solver against brute force on `boards`; returns how many had 0, 1, 2+.
fn cross_check(boards: &[Board]) -> [u32; 3] {
    let mut by_count = [0u32; 3];
    for board in boards {
        let (expected, _) = brute_force(board, 0);
        assert_eq!(count(board), expected, "{:?}", board.to_grid());
        by_count[expected.min(2) as usize] += 1;
    }
    by_count
}

/// The heart of the uniqueness guarantee: on every board the solver's count (uncapped
/// here) equals the brute-force count, so no pruning ever cuts a solution away and no
/// solution is counted twice.
#[test]
fn solver_counts_agree_with_brute_force_on_grown_boards() {
    let mut boards = grown_boards(4, 0..60);
    boards.extend(grown_boards(5, 0..60));
    let by_count = cross_check(&boards);
    assert!(by_count.iter().all(|&c| c >= 10), "{by_count:?}");
}

#[test]
fn solver_counts_agree_with_brute_force_on_sparse_boards() {
    let mut boards = sparse_boards(4, 150, 1);
    boards.extend(sparse_boards(5, 40, 2));
    let most = boards.iter().map(|b| brute_force(b, 0).0).max().unwrap();
    let by_count = cross_check(&boards);
    assert!(
        by_count[1] + by_count[2] >= 10 && most >= 20,
        "{by_count:?} {most}"
    );
}

/// The long cross-check (minutes): `cargo test --release -- --ignored cross_check_long`.
#[test]
#[ignore = "slow: minutes of brute force; run by hand after a solver change"]
fn cross_check_long() {
    let mut boards = Vec::new();
    for size in [4, 5, 6] {
        boards.extend(grown_boards(size, 1000..1800));
    }
    boards.extend(sparse_boards(4, 3000, 7));
    boards.extend(sparse_boards(5, 600, 8));
    let by_count = cross_check(&boards);
    eprintln!("{} boards, by count 0/1/2+: {by_count:?}", boards.len());
}

// ---------------------------------------------------------------------------------
// Hand-worked boards.

/// Every empty cell lies between nodes, so each is a one-cell link; worked on paper:
/// (0,0) and (3,3) have two sides each and take both; (1,0)=1 is then full, so (2,0)
/// takes (3,0) and (2,1); (3,0)=1 is full, so (3,1) takes (2,1) and (3,2); (2,1)=2 is
/// full, so (1,1) takes (0,1) and (1,2); (0,1)=2 is full, so (0,2) takes (1,2) and
/// (0,3); (0,3)=1 is full, so (1,3) takes (1,2) and (2,3); (3,2)=3 has (3,1), (3,3) and
/// needs (2,2); (2,3)=2 is full, so (2,2) takes (3,2) and (1,2); (1,2)=4 gets its four.
/// One drawing, and it joins all eight nodes: exactly one solution, by degrees alone.
const UNIQUE: [&str; 4] = [".1.1", "2.2.", ".4.3", "1.2."];

/// Degrees force everything but the square (1,2),(2,2),(1,3),(2,3) (nodes (2,2)=1 and
/// (1,3)=2 on one diagonal, cells on the other): (2,2) takes (1,2) or (2,3), and each
/// choice forces the rest. Both drawings are connected: exactly two solutions.
const TWO: [&str; 4] = [".2.1", "22.2", "..1.", ".2.2"];

/// (3,3) joins (3,2) and (2,3); (0,3) joins (1,3) and (0,2); (2,3) takes (2,2). The
/// second link runs from (1,3) through (0,3), (0,2) and every cell of the top two rows
/// and (1,2) to (2,2): (3,0)-(3,1) is forced between (2,0) and (2,1), and from (0,2)
/// the path goes either (1,2),(1,1),(0,1),(0,0),(1,0),(2,0),(3,0),(3,1),(2,1),(2,2) or
/// (0,1),(0,0),(1,0),(2,0),(3,0),(3,1),(2,1),(1,1),(1,2),(2,2). Same cells, same ends,
/// two drawings: two solutions by the rules (games/src/hashi/README.md).
const SNAKES: [&str; 4] = ["....", "....", "...1", ".12."];

/// Degrees fix all but the square (2,1),(2,2),(3,1),(3,2); by degrees alone it could
/// be drawn across or down, but across joins (2,2) to (3,2) and makes a link from node
/// (2,3) back to itself: one solution, and it needs the chain rule.
const CHAINS: [&str; 4] = ["1.1.", ".4.2", "3...", ".12."];

#[test]
fn unique_board_is_solved_by_degrees_alone() {
    let a = analyze(&UNIQUE);
    assert_eq!(a.solution_count, 1);
    assert_eq!(a.par, Some(8));
    // Links listed from the end node first in reading order, by the side they leave it.
    let expected = points(&[
        &[(1, 0), (0, 0), (0, 1)],
        &[(3, 0), (2, 0), (2, 1)],
        &[(0, 1), (1, 1), (1, 2)],
        &[(2, 1), (3, 1), (3, 2)],
        &[(1, 2), (1, 3), (2, 3)],
        &[(1, 2), (0, 2), (0, 3)],
        &[(1, 2), (2, 2), (3, 2)],
        &[(3, 2), (3, 3), (2, 3)],
    ]);
    assert_eq!(a.solution, Some(expected));
    assert_eq!(a.extra.technique, Technique::Degrees);
    assert_eq!((a.extra.guesses, a.extra.forced_permille), (0, 1000));
    assert_eq!((a.extra.nodes, a.extra.empty_cells), (8, 8));
}

#[test]
fn two_solution_board_counts_two_and_both_win() {
    let a = analyze(&TWO);
    assert_eq!(a.solution_count, 2);
    assert_eq!(a.extra.technique, Technique::Search);
    let common: [&[(usize, usize)]; 5] = [
        &[(1, 0), (0, 0), (0, 1)],
        &[(1, 0), (2, 0), (3, 0)],
        &[(0, 1), (0, 2), (0, 3), (1, 3)],
        &[(1, 1), (2, 1), (3, 1)],
        &[(3, 1), (3, 2), (3, 3)],
    ];
    let lv = level(&TWO);
    for choice in [
        [&[(1, 1), (1, 2), (2, 2)][..], &[(1, 3), (2, 3), (3, 3)]],
        [&[(1, 1), (1, 2), (1, 3)][..], &[(2, 2), (2, 3), (3, 3)]],
    ] {
        let mut links = common.to_vec();
        links.extend(choice);
        let r = Hashi::replay(&lv, &as_moves(&points(&links))).unwrap();
        assert_eq!((r.status, r.moves_used), (Status::Won, 7));
    }
    // The verifier says so, and no tier serves it.
    let tier = Hashi::tier(Difficulty::Easy);
    assert_eq!(Hashi::accept(&tier, &a), Err("not unique"));
}

#[test]
fn one_link_snaked_two_ways_is_two_solutions() {
    let a = analyze(&SNAKES);
    assert_eq!(a.solution_count, 2);
    let stop = Stop::never();
    let board = Board::parse(&level(&SNAKES));
    let found = solve(&board, 2, 2, &limits(&stop)).unwrap().found;
    let shape = |steps: &[u8]| {
        let mut links: Vec<(usize, usize, Vec<usize>)> = links_of(&board, steps)
            .into_iter()
            .map(|l| {
                let mut cells = l[1..l.len() - 1].to_vec();
                cells.sort_unstable();
                (l[0], l[l.len() - 1], cells)
            })
            .collect();
        links.sort();
        links
    };
    assert_ne!(found[0], found[1]);
    assert_eq!(shape(&found[0]), shape(&found[1]));
}

#[test]
fn chain_rule_board_is_unique_and_graded_chains() {
    let a = analyze(&CHAINS);
    assert_eq!((a.solution_count, a.par), (1, Some(7)));
    assert_eq!(a.extra.technique, Technique::Chains);
    let board = Board::parse(&level(&CHAINS));
    let solution: Vec<Vec<usize>> = a
        .solution
        .unwrap()
        .iter()
        .map(|l| l.iter().map(|&[x, y]| board.cell(x, y)).collect())
        .collect();
    let tail = cells_of(&board, &[(1, 1), (2, 1), (2, 2), (2, 3)]);
    assert!(solution.contains(&tail));
}

#[test]
fn split_board_has_no_solution_though_degrees_fit_twice() {
    let a = analyze(&SPLIT);
    assert_eq!((a.solution_count, a.par, &a.solution), (0, None, &None));
    assert_eq!(a.extra.technique, Technique::Search);
    let tier = Hashi::tier(Difficulty::Easy);
    assert_eq!(Hashi::accept(&tier, &a), Err("not unique"));
}

#[test]
fn hand_worked_counts_match_brute_force() {
    for (rows, expected) in [
        (&UNIQUE, 1),
        (&TWO, 2),
        (&SNAKES, 2),
        (&CHAINS, 1),
        (&SPLIT, 0),
    ] {
        let board = Board::parse(&level(rows));
        assert_eq!(brute_force(&board, 0).0, expected, "{rows:?}");
        assert_eq!(count(&board), expected, "{rows:?}");
    }
}

#[test]
fn boards_without_nodes_or_without_room_have_no_solution() {
    let empty = ["....", "....", "....", "...."];
    assert_eq!(analyze(&empty).solution_count, 0);
    let r = Hashi::replay(&level(&empty), &Vec::new()).unwrap();
    assert_eq!(r.status, Status::Unfinished);
}

/// Two 1s side by side are not linked by that: the one link must leave (0,0) by (0,1)
/// and reach (1,0) by (2,0) or (1,1), through all 14 cells. Worked by hand: ending at
/// (2,0) forces (3,1),(3,0),(2,0) last and leaves 4 paths through the 4x3 rest from
/// (0,1) to (3,1); ending at (1,1) forces (0,1),(0,2),(0,3),(1,3) first and
/// (2,1)-(2,0)-(3,0)-(3,1) inside, and leaves 2. Six solutions (the served count stops
/// at the cap, 2).
#[test]
fn adjacent_nodes_link_only_around() {
    let pair = ["11..", "....", "....", "...."];
    let board = Board::parse(&level(&pair));
    assert_eq!(count(&board), 6);
    assert_eq!(brute_force(&board, 0).0, 6);
    assert_eq!(analyze(&pair).solution_count, SOLUTION_CAP);
}

#[test]
fn the_state_budget_is_reported() {
    let stop = Stop::never();
    let tight = Limits {
        max_states: 1,
        stop: &stop,
    };
    // SNAKES needs guesses: more than one search node.
    assert!(matches!(
        Hashi::analyze(&level(&SNAKES), &tight),
        Err(Exhausted::States(1))
    ));
}

#[test]
fn solutions_are_found_first_when_preferred() {
    let stop = Stop::never();
    let board = Board::parse(&level(&SNAKES));
    let plain = solve(&board, 2, 2, &limits(&stop)).unwrap();
    let second = plain.found[1].clone();
    let near = solver::solve_near(&board, 2, 2, Some(&second), &limits(&stop)).unwrap();
    assert_eq!(near.found[0], second);
    assert_eq!(near.count, plain.count);
}

// ---------------------------------------------------------------------------------
// Replay.

#[test]
fn replay_wins_with_the_solution_and_ignores_links_after_the_win() {
    let lv = level(&RING);
    let board = Board::parse(&lv);
    let mut moves: HashiMoves = RING_LINKS
        .iter()
        .map(|l| l.iter().map(|&(x, y)| [x as i64, y as i64]).collect())
        .collect();
    moves.push(moves[0].clone());
    let r = Hashi::replay(&lv, &moves).unwrap();
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 5, 1)
    );
    assert_eq!((r.extra.cells_left, r.extra.nodes_unmet), (0, 0));
    assert_eq!(Hashi::medals(5, &r), vec!["par"]);
    let links: Vec<Vec<usize>> = RING_LINKS.iter().map(|l| cells_of(&board, l)).collect();
    assert_eq!(links_of(&board, &steps_of(&board, &links)).len(), 5);
}

#[test]
fn replay_of_a_partial_drawing_is_unfinished() {
    let lv = level(&RING);
    let moves = as_moves(&points(&RING_LINKS[..2]));
    let r = Hashi::replay(&lv, &moves).unwrap();
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Unfinished, 2, 0)
    );
    // 11 empty cells, 4 covered; nodes (3,0), (1,2), (0,3), (3,3) still need links.
    assert_eq!((r.extra.cells_left, r.extra.nodes_unmet), (7, 4));
    assert!(Hashi::medals(5, &r).is_empty());
    let r = Hashi::replay(&lv, &Vec::new()).unwrap();
    assert_eq!((r.status, r.moves_used), (Status::Unfinished, 0));
}

#[test]
fn replay_loses_on_a_conflicting_link_and_ignores_the_rest() {
    let lv = level(&RING);
    let moves = as_moves(&points(&[
        RING_LINKS[0],
        &[(1, 2), (1, 1), (1, 0), (0, 0)],
        RING_LINKS[1],
    ]));
    let r = Hashi::replay(&lv, &moves).unwrap();
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Lost, 2, 1)
    );
    assert!(r.reason.unwrap().contains("already on another link"));
}

#[test]
fn replay_loses_when_the_network_is_split() {
    let lv = level(&SPLIT);
    let moves = as_moves(&points(&[
        &[(0, 0), (1, 0), (1, 1)],
        &[(3, 0), (2, 0), (2, 1)],
        &[(0, 3), (1, 3), (1, 2)],
        &[(3, 3), (2, 3), (2, 2)],
        &[(1, 1), (0, 1), (0, 2), (1, 2)],
        &[(2, 1), (3, 1), (3, 2), (2, 2)],
    ]));
    let r = Hashi::replay(&lv, &moves).unwrap();
    assert_eq!((r.status, r.moves_used), (Status::Lost, 6));
    assert!(r.reason.unwrap().contains("one network"));
}

#[test]
fn malformed_links_are_rule_errors_even_after_a_win() {
    let lv = level(&RING);
    let mut moves = as_moves(&points(&RING_LINKS));
    moves.push(vec![[0, 0], [9, 9]]);
    assert_eq!(
        Hashi::replay(&lv, &moves).unwrap_err().rule,
        "hashi.link_length"
    );
    let err = Hashi::replay(&lv, &vec![vec![[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]);
    assert_eq!(err.unwrap_err().rule, "hashi.link_same_node");
}

#[test]
fn preview_draws_every_node_and_the_links_on_request() {
    let lv = level(&UNIQUE);
    let bare = Hashi::preview_svg(&lv, None);
    assert_eq!(bare.matches("<circle").count(), 8);
    assert!(bare.contains(">4</text>") && !bare.contains("<line"));
    let a = analyze(&UNIQUE);
    let drawn = Hashi::preview_svg(&lv, a.solution.as_ref());
    // Eight links of one cell each: two steps apiece.
    assert_eq!(drawn.matches("<line").count(), 16);
}

// ---------------------------------------------------------------------------------
// Served levels.

/// Every served level at the two smallest tiers is checked against brute force: exactly
/// one drawing, and it is the level's `solution`.
fn brute_force_confirms(difficulty: Difficulty, seed: u64) -> Result<(), TestCaseError> {
    let accepted = generate_level::<Hashi>(difficulty, seed, &Stop::never())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let board = Board::parse(&accepted.level);
    let (count, found) = brute_force(&board, 1);
    prop_assert_eq!(count, 1);
    let solution = accepted.analysis.solution.expect("accepted");
    let expected: HashiSolution = links_of(&board, &found[0])
        .iter()
        .map(|l| {
            l.iter()
                .map(|&c| {
                    let (x, y) = board.xy(c);
                    [x, y]
                })
                .collect()
        })
        .collect();
    prop_assert_eq!(solution, expected);
    Ok(())
}

/// Every served level at every tier: the solution follows every rule, the count does
/// not depend on the order the search tries choices in, and it is 1.
fn served_level_holds(difficulty: Difficulty, seed: u64) -> Result<(), TestCaseError> {
    let accepted = generate_level::<Hashi>(difficulty, seed, &Stop::never())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let board = Board::parse(&accepted.level);
    prop_assert_eq!(accepted.analysis.solution_count, 1);
    let solution = accepted.analysis.solution.expect("accepted");
    let r = Hashi::replay(&accepted.level, &as_moves(&solution)).unwrap();
    prop_assert_eq!((r.status, r.moves_used), (Status::Won, accepted.par));
    let links: Vec<Vec<usize>> = solution
        .iter()
        .map(|l| l.iter().map(|&[x, y]| board.cell(x, y)).collect())
        .collect();
    prop_assert!(is_solution(&board, &links));
    // Counting again while trying the solution's choices last must still find one.
    let stop = Stop::never();
    let steps = steps_of(&board, &links);
    let flipped: Vec<u8> = steps.iter().map(|s| !s & 0xf).collect();
    let again = solver::solve_near(&board, 2, 2, Some(&flipped), &limits(&stop)).unwrap();
    prop_assert_eq!(again.count, 1);
    prop_assert_eq!(&again.found[0], &steps);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn served_small_levels_are_unique_by_brute_force(seed in any::<u64>(), medium in any::<bool>()) {
        let tier = if medium { Difficulty::Medium } else { Difficulty::Easy };
        brute_force_confirms(tier, seed)?;
    }

    #[test]
    fn served_levels_are_unique_and_replay(seed in any::<u64>(), tier in 0usize..4) {
        served_level_holds(Difficulty::ALL[tier], seed)?;
    }
}

#[test]
fn a_stop_request_ends_generation() {
    let stop = Stop::never();
    stop.cancel();
    let result = generate_level::<Hashi>(Difficulty::Expert, 1, &stop);
    assert!(matches!(
        result,
        Err(crate::game::GenerateError::Stopped { attempts: 1 })
    ));
}

#[test]
fn generation_is_deterministic() {
    for d in Difficulty::ALL {
        let a = generate_level::<Hashi>(d, 77, &Stop::never()).unwrap();
        let b = generate_level::<Hashi>(d, 77, &Stop::never()).unwrap();
        assert_eq!(a.level, b.level);
        assert_eq!(a.attempts, b.attempts);
        assert_eq!(a.level.width, Hashi::tier(d).params.size as usize);
    }
}

/// Uniqueness edits are worth their cost: with them, an expert level takes far fewer
/// candidates than by plain retry (deterministic: fixed seed, counts only).
#[test]
fn uniqueness_edits_cut_the_candidates_per_level() {
    let edited = candidates_per_level(Difficulty::Expert, None);
    let blind = candidates_per_level(Difficulty::Expert, Some(0));
    assert!(edited * 3 < blind, "edited {edited}, blind {blind}");
}

/// Candidates needed for 30 accepted levels, with the tier's own parameters or with
/// `max_edits` overridden (0: plain retry, no uniqueness edits).
fn candidates_per_level(d: Difficulty, max_edits: Option<u32>) -> u32 {
    const LEVELS: u32 = 30;
    let tier = Hashi::tier(d);
    let mut params = tier.params.clone();
    if let Some(edits) = max_edits {
        params.max_edits = edits;
    }
    let limits = Limits::states(tier.max_states);
    let mut rng = LevelRng::from_u64(2024);
    let (mut levels, mut candidates) = (0, 0u32);
    while levels < LEVELS {
        candidates += 1;
        let Ok(level) = super::generator::generate(&params, &mut rng, &limits) else {
            continue;
        };
        let a = Hashi::analyze(&level, &limits).unwrap();
        if a.par.is_some_and(|p| tier.par_in_window(p)) && Hashi::accept(&tier, &a).is_ok() {
            levels += 1;
        }
    }
    candidates
}

/// The golden catalog's easy level of seed 1 (see README.md), and its solution.
fn golden_easy() -> (HashiLevel, HashiMoves) {
    let lv = level(&["..2.2", "3.3..", "...4.", ".3..1", "2.3.1"]);
    let stop = Stop::never();
    let solution = Hashi::analyze(&lv, &limits(&stop))
        .unwrap()
        .solution
        .unwrap();
    let links = solution
        .iter()
        .map(|link| link.iter().map(|&[x, y]| [x as i64, y as i64]).collect())
        .collect();
    (lv, links)
}

fn hint(lv: &HashiLevel, moves: &HashiMoves) -> crate::core::Hint<HashiMoves> {
    let stop = Stop::never();
    Hashi::hint(lv, moves, &limits(&stop)).unwrap()
}

#[test]
fn hints_come_from_the_unique_solution_and_name_the_first_wrong_link() {
    let (lv, solution) = golden_easy();
    let start = hint(&lv, &vec![]);
    assert_eq!(start.distance, Some(12));
    assert_eq!(start.next, Some(solution[..1].to_vec()));
    // The second link drawn backwards is still that link.
    let backwards: LinkPoints = solution[1].iter().rev().copied().collect();
    let two = hint(&lv, &vec![backwards, solution[0].clone()]);
    assert_eq!(
        (two.distance, two.next),
        (Some(10), Some(solution[2..3].to_vec()))
    );
    assert_eq!(two.conflict, None);
    // Node (2,0) down the left through (1,0) and (1,1) to node (2,1): a well-formed
    // link, but not one of the solution's.
    let wrong: LinkPoints = vec![[2, 0], [1, 0], [1, 1], [2, 1]];
    let off = hint(&lv, &vec![solution[3].clone(), wrong, solution[1].clone()]);
    assert_eq!(off.status, Status::Unfinished);
    assert_eq!((off.distance, off.next), (None, None));
    assert_eq!((off.conflict, off.undo), (Some(1), Some(2)));
    // Drawn twice: the copy covers its cells again and loses.
    let twice = hint(&lv, &vec![solution[0].clone(), solution[0].clone()]);
    assert_eq!(twice.status, Status::Lost);
    assert_eq!((twice.conflict, twice.undo), (Some(1), Some(1)));
    let won = hint(&lv, &solution);
    assert_eq!((won.status, won.distance), (Status::Won, Some(0)));
}
