//! Analyser, replay and medal tests on hand-worked boards, and a cross-check of the
//! analyser against a naive one that carries the combo-broken bits in its states.
#![allow(clippy::too_many_lines)] // hand-worked boards read as one scenario each

use std::collections::HashMap;

use super::rules::{Board, State};
use super::*;
use crate::core::{Dir, Stop};

pub(super) fn level(rows: &[&str]) -> SkiddyLevel {
    SkiddyLevel {
        width: rows[0].len(),
        height: rows.len(),
        grid: rows.iter().map(|r| r.to_string()).collect(),
    }
}

fn analyze(lv: &SkiddyLevel) -> Analysis<String, SkiddyMetrics> {
    Skiddy::validate(lv).unwrap();
    let stop = Stop::never();
    Skiddy::analyze(
        lv,
        &Limits {
            max_states: 50_000_000,
            stop: &stop,
        },
    )
    .unwrap()
}

/// Level 1-1 of Baldiraghi's article: a 3x2 inner area, two reds on the top row, one red goal
/// below the left column.
pub(super) const LEVEL_1_1: [&str; 4] = ["#####", "#r.r#", "#...#", "#R###"];

#[test]
fn level_1_1_has_the_write_ups_figures() {
    // Pairs: the start {(1,1),(3,1)}, after L {(1,1),(2,1)}, after R {(2,1),(3,1)},
    // then D {(2,2),(3,2)} and L {(1,2),(2,2)}. Singles (after D clears the left one):
    // (3,2), (1,2), (3,1), (1,1). Nine states, as in the article, none a dead end.
    let a = analyze(&level(&LEVEL_1_1));
    assert_eq!(a.extra.real_states, 9);
    assert_eq!(a.states, 9);
    assert_eq!(a.extra.potential_states, BigCount(21));
    assert_eq!(a.extra.dead_ends, 0);
    // Left joins the pair, down sends both out at once: par 2 with the combo. Down
    // first clears one red and breaks the combo, and the other still gets out.
    assert_eq!(a.par, Some(2));
    assert_eq!(a.extra.combo_par, Some(2));
    assert!(a.extra.perfect);
    assert!(a.extra.breakable);
    assert_eq!(a.solution.as_deref(), Some("LD"));
    assert_eq!(a.solution_count, 1);
    assert_eq!(fairness(a.par, &a.extra), Ok(()));
}

#[test]
fn a_crate_stuck_in_front_of_the_goal_makes_dead_ends() {
    // The crate lives on row 1 (nothing can push it up or down). Pushed to (4,1) it can
    // never leave (pushing it right would send it into the goal), and the red can only
    // exit from (4,1): every state with the crate there is a dead end. The red then
    // rests at (3,1), (1,1), (1,2), (3,2) or (4,2): five dead ends.
    // Shortest win: D to (1,2), R to (4,2), U to (4,1), R out.
    let a = analyze(&level(&["######", "#rc..R", "#....#", "######"]));
    assert_eq!(a.extra.dead_ends, 5);
    assert_eq!(a.par, Some(4));
    assert_eq!(a.solution.as_deref(), Some("DRUR"));
    assert_eq!(a.solution_count, 1);
    // One skiddy: the combo is never broken, and can never be.
    assert_eq!(a.extra.combo_par, Some(4));
    assert!(!a.extra.breakable);
    assert_eq!(fairness(a.par, &a.extra), Err("dead ends"));
}

#[test]
fn a_pair_that_cannot_be_split_is_not_breakable() {
    // The goal is below the middle column. A red rests in the middle only against the
    // other red, so they always leave together: fair on dead ends and combo, but the
    // third rule fails.
    let a = analyze(&level(&["#####", "#r.r#", "#...#", "##R##"]));
    assert_eq!(a.extra.dead_ends, 0);
    assert_eq!(a.par, Some(2));
    assert_eq!(a.extra.combo_par, Some(2));
    assert!(!a.extra.breakable);
    assert_eq!(fairness(a.par, &a.extra), Err("not breakable"));
}

#[test]
fn an_unwinnable_level_is_all_dead_ends() {
    // No yellow goal: nothing can ever win.
    let a = analyze(&level(&["#####", "#ry.#", "#...#", "#R###"]));
    assert_eq!(a.par, None);
    assert_eq!(a.solution, None);
    assert_eq!(a.extra.combo_par, None);
    assert!(!a.extra.perfect);
    assert_eq!(a.extra.dead_ends, a.extra.real_states);
    assert_eq!(a.solution_count, 0);
}

#[test]
fn the_state_budget_is_reported() {
    let limits = Limits::states(3);
    let err = Skiddy::analyze(&level(&LEVEL_1_1), &limits).err();
    assert_eq!(err, Some(Exhausted::States(3)));
}

/// The cap, checked once a batch, still counts the states expanded: a budget of exactly
/// those of a complete search is enough, one fewer is not.
#[test]
fn the_budget_counts_the_states_expanded() {
    // A level of several batches (a batch is 32 states).
    let (board, start, expanded) = (200..)
        .find_map(|seed| {
            let (board, start) = Board::compile(&random_level(seed));
            let graph = solver::explore(&board, start, &Limits::states(200_000)).ok()?;
            (graph.expanded > 100).then_some((board, start, graph.expanded))
        })
        .expect("a level of more than 100 states");
    let search = |budget| solver::explore(&board, start, &Limits::states(budget));
    assert_eq!(search(expanded).unwrap().expanded, expanded);
    assert_eq!(
        search(expanded - 1).err(),
        Some(Exhausted::States(expanded - 1))
    );
}

#[test]
fn replay_earns_medals_by_the_moves_played() {
    let lv = level(&LEVEL_1_1);
    let replay = |m: &str| Skiddy::replay(&lv, &m.to_string()).unwrap();
    // The perfect line.
    let r = replay("LD");
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 2, 0)
    );
    assert!(r.extra.combo);
    assert_eq!(Skiddy::medals(2, &r), ["par", "combo", "perfect"]);
    // One by one: down, left, down. Won, but neither par nor combo.
    let r = replay("DLD");
    assert_eq!((r.status, r.moves_used), (Status::Won, 3));
    assert!(!r.extra.combo);
    assert!(Skiddy::medals(2, &r).is_empty());
    // A non-move costs a move: the combo is kept, par is lost.
    let r = replay("ULD");
    assert_eq!((r.status, r.moves_used), (Status::Won, 3));
    assert_eq!(Skiddy::medals(2, &r), ["combo"]);
    // Moves after the win are ignored.
    let r = replay("LDRR");
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 2, 2)
    );
    // Unfinished: no medals, the reds still in play are counted.
    let r = replay("L");
    assert_eq!(r.status, Status::Unfinished);
    assert_eq!(r.extra.skiddies_left, 2);
    assert!(Skiddy::medals(2, &r).is_empty());
}

#[test]
fn replay_rejects_letters_that_are_not_moves() {
    let err = Skiddy::replay(&level(&LEVEL_1_1), &"LX".to_string())
        .err()
        .unwrap();
    assert_eq!(err.rule, "moves.letters");
}

#[test]
fn huge_potential_counts_serialize_exactly_as_strings() {
    assert_eq!(serde_json::to_string(&BigCount(21)).unwrap(), "21");
    let big = BigCount(u128::from(u64::MAX) + 1);
    assert_eq!(
        serde_json::to_string(&big).unwrap(),
        "\"18446744073709551616\""
    );
}

#[test]
fn preview_shows_every_piece_and_the_solution() {
    let lv = level(&["#######", "#rcO.iR", "#y...#Y", "#######"]);
    Skiddy::validate(&lv).unwrap();
    let svg = Skiddy::preview_svg(&lv, Some(&"RL".to_string()));
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains("#e53935") && svg.contains("#fdd835"));
    assert!(svg.contains("#8d6e63") && svg.contains("#b3e5fc") && svg.contains("#212121"));
    assert!(svg.contains(">RL<"));
}

/// The figures of a naive analyser: states carry the combo-broken bits explicitly, in a
/// HashMap, moved by the literal tick rules.
#[derive(Debug, PartialEq, Eq)]
struct Naive {
    par: Option<u32>,
    combo_par: Option<u32>,
    real_states: u64,
    dead_ends: u64,
    breakable: bool,
}

fn naive_figures(lv: &SkiddyLevel) -> Naive {
    let (board, start) = Board::compile(lv);
    let full = solver::colour_counts(start);
    let broken_after = |broken: u8, from: State, to: State| {
        let (a, b) = (solver::colour_counts(from), solver::colour_counts(to));
        (0..4).fold(broken, |acc, c| {
            let partial = b[c] < a[c] && !(b[c] == 0 && a[c] == full[c]);
            acc | (u8::from(partial) << c)
        })
    };
    // Product graph over (position, broken bits).
    let mut ids: HashMap<(State, u8), usize> = HashMap::new();
    let mut nodes = vec![(start, 0u8)];
    let mut depth = vec![0u32];
    let mut succ: Vec<Vec<usize>> = Vec::new();
    ids.insert((start, 0), 0);
    let mut i = 0;
    while i < nodes.len() {
        let (s, broken) = nodes[i];
        let mut out = Vec::new();
        if !Board::is_win(s) {
            for d in Dir::ALL {
                let t = board.tilt_ticks(s, d);
                if t == s {
                    continue;
                }
                let node = (t, broken_after(broken, s, t));
                let id = *ids.entry(node).or_insert_with(|| {
                    nodes.push(node);
                    depth.push(depth[i] + 1);
                    nodes.len() - 1
                });
                out.push(id);
            }
        }
        succ.push(out);
        i += 1;
    }
    // Which nodes can win at all (fixpoint on the successor lists).
    let mut can_win: Vec<bool> = nodes.iter().map(|&(s, _)| Board::is_win(s)).collect();
    loop {
        let mut changed = false;
        for v in 0..nodes.len() {
            if !can_win[v] && succ[v].iter().any(|&u| can_win[u]) {
                can_win[v] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let shortest = |ok: &dyn Fn(usize) -> bool| {
        (0..nodes.len())
            .filter(|&v| Board::is_win(nodes[v].0) && ok(v))
            .map(|v| depth[v])
            .min()
    };
    // Positions (without the bits) for the position-level figures.
    let mut positions: HashMap<State, bool> = HashMap::new();
    for (v, &(s, _)) in nodes.iter().enumerate() {
        if !Board::is_win(s) {
            *positions.entry(s).or_insert(false) |= can_win[v];
        }
    }
    Naive {
        par: shortest(&|_| true),
        combo_par: shortest(&|v| nodes[v].1 == 0),
        real_states: positions.len() as u64,
        dead_ends: positions.values().filter(|&&w| !w).count() as u64,
        breakable: (0..nodes.len()).any(|v| Board::is_win(nodes[v].0) && nodes[v].1 != 0),
    }
}

/// A small random board: walls, pits, goals and movables by a seeded stream.
pub(super) fn random_level(seed: u64) -> SkiddyLevel {
    let mut rng = LevelRng::from_u64(seed);
    let (w, h) = (5 + rng.index(3), 4 + rng.index(2));
    let mut rows: Vec<Vec<char>> = vec![vec!['#'; w]; h];
    for row in rows.iter_mut().take(h - 1).skip(1) {
        for c in row.iter_mut().take(w - 1).skip(1) {
            *c = match rng.index(12) {
                0 => '#',
                1 => 'O',
                2 | 3 => 'r',
                4 => 'y',
                5 => 'c',
                6 => 'i',
                _ => '.',
            };
        }
    }
    for goal in ['R', 'Y', 'R'] {
        let x = 1 + rng.index(w - 2);
        let y = if rng.chance(1, 2) { 0 } else { h - 1 };
        rows[y][x] = goal;
    }
    if !rows.iter().flatten().any(|&c| c == 'r' || c == 'y') {
        rows[1][1] = 'r';
    }
    SkiddyLevel {
        width: w,
        height: h,
        grid: rows.into_iter().map(|r| r.into_iter().collect()).collect(),
    }
}

#[test]
fn the_analyser_agrees_with_the_naive_one() {
    // How many boards showed each case, so the comparison is known to cover them.
    let (mut combo_longer, mut dead, mut breakable, mut fair) = (0, 0, 0, 0);
    for seed in 0..150 {
        let lv = random_level(seed);
        let a = analyze(&lv);
        let naive = naive_figures(&lv);
        combo_longer += u32::from(a.par.is_some() && a.extra.combo_par != a.par);
        dead += u32::from(a.extra.dead_ends > 0 && a.par.is_some());
        breakable += u32::from(a.extra.breakable);
        fair += u32::from(a.par.is_some() && fairness(a.par, &a.extra).is_ok());
        let fast = Naive {
            par: a.par,
            combo_par: a.extra.combo_par,
            real_states: a.extra.real_states,
            dead_ends: a.extra.dead_ends,
            breakable: a.extra.breakable,
        };
        assert_eq!(fast, naive, "seed {seed}: {:?}", lv.grid);
        if let Some(solution) = &a.solution {
            let r = Skiddy::replay(&lv, solution).unwrap();
            assert_eq!((r.status, r.moves_used), (Status::Won, a.par.unwrap()));
            assert_eq!(r.extra.combo, a.extra.perfect, "seed {seed}");
        }
    }
    assert!(
        combo_longer > 0 && dead > 0 && breakable > 0 && fair > 0,
        "coverage: {combo_longer} {dead} {breakable} {fair}"
    );
}

#[test]
fn the_fast_moves_agree_with_the_literal_ticks_on_every_reachable_state() {
    for seed in 200..260 {
        let lv = random_level(seed);
        let (board, start) = Board::compile(&lv);
        let limits = Limits::states(200_000);
        let graph = solver::explore(&board, start, &limits).unwrap();
        for i in 0..graph.len() {
            let s = graph.state(i);
            for d in Dir::ALL {
                let literal = board.tilt_ticks(s, d);
                assert_eq!(board.tilt(s, d), literal, "seed {seed} state {i} {d:?}");
            }
        }
    }
}

/// The benchmark level ([`super::BIG_LEVEL`]).
const BIG: [&str; 7] = super::BIG_LEVEL;

/// The analysis of the benchmark level explores a fixed graph: a change in these counts is
/// a change in the solver's results, not only in its speed (`levelforge bench --game
/// skiddy` times it).
#[test]
fn big_level_state_counts_are_fixed() {
    let lv = level(&BIG);
    Skiddy::validate(&lv).unwrap();
    let (board, start) = Board::compile(&lv);
    let limits = Limits::states(5_000_000);
    let graph = solver::explore(&board, start, &limits).unwrap();
    assert_eq!(graph.findings(SOLUTION_CAP).real_states, 1_159_415);
    let a = analyze(&lv);
    assert_eq!(a.extra.potential_states, BigCount(21_513_083_856));
}

#[test]
fn generated_levels_are_fair_and_their_solution_earns_every_medal() {
    for difficulty in Difficulty::ALL {
        for seed in [3, 1_000, u64::MAX / 3] {
            let accepted =
                crate::game::generate_level::<Skiddy>(difficulty, seed, &Stop::never()).unwrap();
            let (lv, a) = (&accepted.level, &accepted.analysis);
            assert_eq!(a.extra.dead_ends, 0);
            assert_eq!(a.extra.combo_par, a.par);
            assert!(a.extra.perfect);
            if a.extra.skiddies > a.extra.colours {
                assert!(a.extra.breakable);
            }
            let tier = Skiddy::tier(difficulty);
            assert!(tier.par_in_window(accepted.par));
            let r = Skiddy::replay(lv, a.solution.as_ref().unwrap()).unwrap();
            assert_eq!((r.status, r.moves_used), (Status::Won, accepted.par));
            assert_eq!(
                Skiddy::medals(accepted.par, &r),
                ["par", "combo", "perfect"]
            );
            assert!(u64::try_from(a.extra.potential_states.0).is_ok());
        }
    }
}

/// A mid-size level's exact state count (its analysis is also a steady workload for
/// counting instructions: `valgrind --tool=cachegrind <test binary> mid_level_analysis`).
#[test]
fn mid_level_analysis() {
    let lv = level(&[
        "########", "#r..#.yR", "#.y#.#r#", "#..#c..#", "Y.r...y#", "#i.#r#y#", "########",
    ]);
    let a = analyze(&lv);
    assert_eq!(a.states, 223_079);
}

fn hint(lv: &SkiddyLevel, moves: &str) -> crate::core::Hint<String> {
    let limits = Limits::states(1_000_000);
    Skiddy::hint(lv, &moves.to_string(), &limits).unwrap()
}

#[test]
fn hints_walk_the_optimal_line_and_take_back_the_push_into_the_corner() {
    // The level of `a_crate_stuck_in_front_of_the_goal_makes_dead_ends`: par 4, DRUR.
    let lv = level(&["######", "#rc..R", "#....#", "######"]);
    let start = hint(&lv, "");
    assert_eq!(
        (start.distance, start.next.as_deref()),
        (Some(4), Some("D"))
    );
    assert_eq!(hint(&lv, "D").distance, Some(3));
    // R pushes the crate to (3,1): the red can still go round it. A second R pushes it
    // to (4,1), the only cell the red exits from: a dead end, one push too far.
    assert!(hint(&lv, "R").distance.is_some());
    let stuck = hint(&lv, "RR");
    assert_eq!((stuck.distance, stuck.undo), (None, Some(1)));
    assert_eq!(stuck.status, Status::Unfinished);
    let after = Skiddy::position(&lv, &"R".to_string()).unwrap().unwrap();
    assert_eq!(after.grid, ["######", "#.rc.R", "#....#", "######"]);
    assert_eq!(analyze(&after).par, hint(&lv, "R").distance);
}
