//! Solver, replay and generator tests for hopper: hand-worked boards, a by-the-book
//! replay written straight from games/src/hopper/README.md to check the compiled rules against, and
//! properties of generated and served levels.

use super::*;
use crate::core::{Dir, Stop};
use crate::game::generate_level;

pub(super) fn level(rows: &[&str], stars: &[[usize; 2]]) -> HopperLevel {
    HopperLevel {
        width: rows[0].chars().count(),
        height: rows.len(),
        grid: rows.iter().map(|r| r.to_string()).collect(),
        stars: stars.to_vec(),
    }
}

fn analyze(lv: &HopperLevel) -> Analysis<String, HopperMetrics> {
    Hopper::validate(lv).unwrap();
    let stop = Stop::never();
    Hopper::analyze(
        lv,
        &Limits {
            max_states: 1_000_000,
            stop: &stop,
        },
    )
    .unwrap()
}

fn replay(lv: &HopperLevel, moves: &str) -> Replay<HopperReplay> {
    Hopper::replay(lv, &moves.to_string()).unwrap()
}

// --- the solver on hand-worked boards ---------------------------------------------------

#[test]
fn a_straight_corridor() {
    let a = analyze(&level(&["G", ".", "S"], &[]));
    assert_eq!(a.par, Some(2));
    assert_eq!(a.solution.as_deref(), Some("UU"));
    assert_eq!(a.solution_count, 1);
}

#[test]
fn every_shortest_route_is_counted() {
    // Four hops, two up and two right, in any order: C(4,2) = 6 sequences. Breadth-first
    // with U before R reaches (1,0) first by U U R, so the solution is U U R R.
    let a = analyze(&level(&["..G", "...", "S.."], &[]));
    assert_eq!(a.par, Some(4));
    assert_eq!(a.solution.as_deref(), Some("UURR"));
    assert_eq!(a.solution_count, 6);
}

#[test]
fn a_star_keeps_only_the_routes_through_it() {
    // The star in the middle: two ways there (UR, RU), two ways on (UR, RU).
    let a = analyze(&level(&["..G", "...", "S.."], &[[1, 1]]));
    assert_eq!(a.par, Some(4));
    assert_eq!(a.solution_count, 4);
}

#[test]
fn a_star_at_the_end_of_a_grass_spit_means_going_back() {
    // R R to the star, L L back, U onto the goal: the only way, since (1,0) and (2,0)
    // are water.
    let a = analyze(&level(&["G~~", "S.."], &[[2, 1]]));
    assert_eq!(a.par, Some(5));
    assert_eq!(a.solution.as_deref(), Some("RRLLU"));
    assert_eq!(a.solution_count, 1);
}

#[test]
fn a_star_beyond_dirt_cannot_be_fetched_and_brought_back() {
    // The dirt at (1,1) is water once crossed: there is no way back from the star.
    let a = analyze(&level(&["G~~", "S:."], &[[2, 1]]));
    assert_eq!((a.par, a.solution, a.solution_count), (None, None, 0));
}

#[test]
fn arrows_save_hops() {
    // R slides over both arrows to (3,0); R again lands on the goal.
    let a = analyze(&level(&["S>>.G"], &[]));
    assert_eq!(a.par, Some(2));
    assert_eq!(a.solution.as_deref(), Some("RR"));
    assert_eq!(a.solution_count, 1);
}

#[test]
fn a_goal_cut_off_by_water_is_unsolvable() {
    let a = analyze(&level(&["S~G"], &[]));
    assert_eq!(a.par, None);
    assert_eq!(a.solution, None);
}

#[test]
fn the_goal_cannot_be_crossed_on_the_way() {
    // The star lies past the goal: landing on G would end the sequence, so the route
    // goes round by the bottom row, D R R U, and back L onto the goal: 5 hops, one way.
    let a = analyze(&level(&["SG.", "..."], &[[2, 0]]));
    assert_eq!(a.par, Some(5));
    assert_eq!(a.solution.as_deref(), Some("DRRUL"));
    assert_eq!(a.solution_count, 1);
}

#[test]
fn the_count_saturates_at_the_cap_and_the_state_budget_is_kept() {
    let board = Board::compile(&level(&["..G", "...", "S.."], &[]));
    let stop = Stop::never();
    let roomy = Limits {
        max_states: 1000,
        stop: &stop,
    };
    assert_eq!(solver::solve(&board, &roomy, 5).unwrap().count, 5);
    let tight = Limits {
        max_states: 2,
        stop: &stop,
    };
    assert_eq!(
        solver::solve(&board, &tight, 5).unwrap_err(),
        Exhausted::States(2)
    );
}

#[test]
fn the_bounded_search_agrees_with_plain_breadth_first_search() {
    for rows in [
        &["..G", "...", "S.."][..],
        &["G~~", "S.."],
        &["S>>.G"],
        &["::.G", ":<.:", "S.::"],
        &[".v:.G", ">.:<.", ".^.:.", "S..>:"],
    ] {
        for stars in [&[][..], &[[1, 1]], &[[0, 0], [2, 1]]] {
            let lv = level(rows, stars);
            if Hopper::validate(&lv).is_err() {
                continue;
            }
            let a = analyze(&lv);
            let board = Board::compile(&lv);
            assert_eq!(
                solver::reference_solve(&board, SOLUTION_CAP),
                (a.par, a.solution_count),
                "{rows:?} {stars:?}"
            );
        }
    }
}

// --- replays ------------------------------------------------------------------------------

#[test]
fn a_perfect_sequence_wins_and_earns_par_when_shortest() {
    let lv = level(&["G~~", "S.."], &[[2, 1]]);
    let r = replay(&lv, "RRLLU");
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 5, 0)
    );
    assert_eq!((r.extra.stars_collected, r.extra.stars_total), (1, 1));
    assert_eq!(r.extra.at, [0, 0]);
    assert_eq!(Hopper::medals(5, &r), vec!["par"]);
    // A detour still wins, without the medal.
    let r = replay(&lv, "RLRRLLU");
    assert_eq!((r.status, r.moves_used), (Status::Won, 7));
    assert!(Hopper::medals(5, &r).is_empty());
}

#[test]
fn the_goal_without_every_star_loses_and_ends_the_sequence() {
    let lv = level(&["SG.", "..."], &[[2, 0], [0, 1]]);
    let r = replay(&lv, "DURRR");
    assert_eq!(r.status, Status::Lost);
    assert_eq!((r.moves_used, r.moves_ignored), (3, 2));
    assert_eq!((r.extra.stars_collected, r.extra.stars_total), (1, 2));
    assert_eq!(r.extra.at, [1, 0]);
    assert!(r.reason.unwrap().contains("1 of 2 stars"));
}

#[test]
fn a_fall_loses_with_its_reason_and_the_rest_is_ignored() {
    let lv = level(&["G~~", "S:."], &[]);
    let r = replay(&lv, "RRLUU");
    assert_eq!(r.status, Status::Lost);
    assert_eq!((r.moves_used, r.moves_ignored), (3, 2));
    assert_eq!(r.reason.as_deref(), Some("hopped into water"));
    // Where it stood before the fatal hop.
    assert_eq!(r.extra.at, [2, 1]);
    let r = replay(&level(&["S><", "G~~"], &[]), "R");
    assert!(r.reason.unwrap().contains("loop"));
    let r = replay(&level(&["S>", "G~"], &[]), "R");
    assert_eq!(
        r.reason.as_deref(),
        Some("an arrow slid the hopper off the grid")
    );
}

#[test]
fn a_hop_that_changes_nothing_still_costs_a_move() {
    // R onto `<` slides back onto the start.
    let lv = level(&["S<", "G~"], &[]);
    let r = replay(&lv, "RD");
    assert_eq!((r.status, r.moves_used), (Status::Won, 2));
    assert_eq!(analyze(&lv).par, Some(1));
}

#[test]
fn an_unfinished_sequence_reports_where_it_stands() {
    let lv = level(&["G..", "~~.", "S.."], &[[2, 1]]);
    let r = replay(&lv, "RRU");
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Unfinished, 3, 0)
    );
    assert_eq!(r.extra.at, [2, 1]);
    assert_eq!(r.extra.stars_collected, 1);
    assert_eq!(r.reason, None);
    assert_eq!(replay(&lv, "").status, Status::Unfinished);
}

#[test]
fn letters_that_are_not_moves_are_rejected() {
    let lv = level(&["S.G"], &[]);
    let err = Hopper::replay(&lv, &"RX".to_string()).err().unwrap();
    assert_eq!(err.rule, "moves.letters");
}

#[test]
fn the_preview_draws_every_piece_and_the_solution() {
    let lv = level(&["S>:G", "~^.v", "<..."], &[[2, 1]]);
    let svg = Hopper::preview_svg(&lv, Some(&"RD".to_string()));
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    for colour in ["#8bc34a", "#a1724e", "#cfd8dc", "#ffd600", "#d32f2f"] {
        assert!(svg.contains(colour), "{colour}");
    }
    // Four arrows, one star.
    assert_eq!(svg.matches("fill=\"#37474f\"").count(), 4);
    assert_eq!(svg.matches("#ffd600").count(), 1);
    assert!(!Hopper::preview_svg(&lv, None).contains("polyline"));
    // A junk solution draws no trail and does not panic.
    assert!(Hopper::preview_svg(&lv, Some(&"RQ".to_string())).contains("<svg"));
}

// --- the rules once more, by the book ------------------------------------------------------

/// Replays `moves` on the level's characters exactly as games/src/hopper/README.md words it, sharing no
/// code with the game: (status, moves used, stars collected).
fn book_replay(lv: &HopperLevel, moves: &[Dir]) -> (Status, u32, u32) {
    let mut grid: Vec<Vec<char>> = lv.grid.iter().map(|r| r.chars().collect()).collect();
    let (w, h) = (lv.width as i32, lv.height as i32);
    let mut pos = (0i32, 0i32);
    for (y, row) in grid.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            if c == 'S' {
                pos = (x as i32, y as i32);
            }
        }
    }
    let mut collected: Vec<[usize; 2]> = Vec::new();
    for (i, &d) in moves.iter().enumerate() {
        let used = i as u32 + 1;
        if grid[pos.1 as usize][pos.0 as usize] == ':' {
            grid[pos.1 as usize][pos.0 as usize] = '~';
        }
        let (mut dx, mut dy) = d.delta();
        let mut slides = 0;
        let landed = loop {
            pos = (pos.0 + dx, pos.1 + dy);
            if pos.0 < 0 || pos.1 < 0 || pos.0 >= w || pos.1 >= h {
                break None;
            }
            let c = grid[pos.1 as usize][pos.0 as usize];
            (dx, dy) = match c {
                '^' => (0, -1),
                'v' => (0, 1),
                '<' => (-1, 0),
                '>' => (1, 0),
                '~' => break None,
                _ => break Some(c),
            };
            slides += 1;
            if slides > 10_000 {
                break None;
            }
        };
        let Some(c) = landed else {
            return (Status::Lost, used, collected.len() as u32);
        };
        let here = [pos.0 as usize, pos.1 as usize];
        if lv.stars.contains(&here) && !collected.contains(&here) {
            collected.push(here);
        }
        if c == 'G' {
            let perfect = collected.len() == lv.stars.len();
            let status = if perfect { Status::Won } else { Status::Lost };
            return (status, used, collected.len() as u32);
        }
    }
    (
        Status::Unfinished,
        moves.len() as u32,
        collected.len() as u32,
    )
}

fn agrees_with_the_book(lv: &HopperLevel, moves: &[Dir]) {
    let text = crate::core::moves_to_string(moves);
    let r = replay(lv, &text);
    assert_eq!(
        book_replay(lv, moves),
        (r.status, r.moves_used, r.extra.stars_collected),
        "{:?} {:?} {text}",
        lv.grid,
        lv.stars
    );
}

fn random_moves(rng: &mut LevelRng, len: usize) -> Vec<Dir> {
    (0..len).map(|_| Dir::ALL[rng.index(4)]).collect()
}

#[test]
fn compiled_rules_agree_with_the_book_on_hand_boards() {
    let boards = [
        level(&["S>>v", "G~~."], &[[3, 1]]),
        level(&[":<", "SG"], &[]),
        level(&["S><", "G~~"], &[]),
        level(&["S>.", "G~."], &[[2, 0], [2, 1]]),
        level(&[".v:.G", ">.:<.", ".^.:.", "S..>:"], &[[2, 0], [4, 3]]),
    ];
    let mut rng = LevelRng::from_u64(11);
    for lv in &boards {
        Hopper::validate(lv).unwrap();
        for len in 0..200 {
            agrees_with_the_book(lv, &random_moves(&mut rng, len % 12));
        }
    }
}

// --- generated and served levels ------------------------------------------------------------

#[test]
fn every_candidate_carries_the_perfect_sequence_it_was_built_around() {
    for difficulty in Difficulty::ALL {
        let params = Hopper::tier(difficulty).params;
        let mut rng = LevelRng::from_u64(difficulty.index() as u64);
        let mut built = 0;
        for _ in 0..150 {
            let Ok(planned) = generator::generate(&params, &mut rng) else {
                continue;
            };
            built += 1;
            let lv = &planned.level;
            Hopper::validate(lv).unwrap();
            agrees_with_the_book(lv, &planned.hops);
            let r = replay(lv, &crate::core::moves_to_string(&planned.hops));
            assert_eq!(
                (r.status, r.moves_used),
                (Status::Won, planned.hops.len() as u32),
                "{difficulty} {:?}",
                lv.grid
            );
            let a = analyze(lv);
            let par = a.par.expect("the planned sequence is perfect");
            assert!(par as usize <= planned.hops.len());
            assert_eq!(
                solver::reference_solve(&Board::compile(lv), SOLUTION_CAP),
                (a.par, a.solution_count),
                "{:?}",
                lv.grid
            );
            for len in [3, 10, 30] {
                agrees_with_the_book(lv, &random_moves(&mut rng, len));
            }
        }
        assert!(built > 30, "{difficulty}: only {built} candidates");
    }
}

#[test]
fn every_served_level_has_a_verified_perfect_sequence_of_par_hops() {
    for difficulty in Difficulty::ALL {
        let tier = Hopper::tier(difficulty);
        for seed in 0..40 {
            let accepted = generate_level::<Hopper>(difficulty, seed, &Stop::never())
                .unwrap_or_else(|e| panic!("{difficulty} seed {seed}: {e}"));
            let lv = &accepted.level;
            let solution = accepted.analysis.solution.as_deref().unwrap();
            assert_eq!(solution.len() as u32, accepted.par);
            assert!(tier.par_in_window(accepted.par));
            let r = replay(lv, solution);
            assert_eq!((r.status, r.moves_used), (Status::Won, accepted.par));
            assert_eq!(r.extra.stars_collected, r.extra.stars_total);
            assert_eq!(Hopper::medals(accepted.par, &r), vec!["par"]);
            assert!(accepted.analysis.solution_count >= 1);
            assert!(!lv.stars.is_empty());
        }
    }
}

#[test]
fn tiers_grow_with_the_difficulty() {
    let tiers: Vec<_> = Difficulty::ALL.map(Hopper::tier).into_iter().collect();
    for pair in tiers.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(a.params.difficulty_permille < b.params.difficulty_permille);
        assert!(a.params.width * a.params.height < b.params.width * b.params.height);
        assert!(a.params.waypoints.0 < b.params.waypoints.0);
        assert!(a.params.dirt_permille < b.params.dirt_permille);
        assert!(a.params.arrow_permille < b.params.arrow_permille);
        // Neighbouring par windows share at most their boundary.
        assert!(a.par_max.unwrap() <= b.par_min);
    }
    assert_eq!(tiers[0].params.arrow_permille, 0);
}

fn hint(lv: &HopperLevel, moves: &str) -> crate::core::Hint<String> {
    let limits = Limits::states(1_000_000);
    Hopper::hint(lv, &moves.to_string(), &limits).unwrap()
}

#[test]
fn hints_count_the_hops_left_and_take_back_a_fall() {
    let lv = level(&["G", ".", "S"], &[]);
    let start = hint(&lv, "");
    assert_eq!(
        (start.distance, start.next.as_deref()),
        (Some(2), Some("U"))
    );
    assert_eq!(hint(&lv, "U").distance, Some(1));
    let fell = hint(&lv, "UL");
    assert_eq!(fell.status, Status::Lost);
    assert_eq!((fell.distance, fell.undo), (None, Some(1)));
    assert_eq!(hint(&lv, "UU").distance, Some(0));
}

#[test]
fn the_position_moves_the_start_and_drops_the_dirt_and_stars_behind() {
    // Hop up over the star onto grass, leaving the dirt below behind as water.
    let lv = level(&["G", ".", ".", ":", "S"], &[[0, 2]]);
    assert_eq!(
        Hopper::position(&lv, &"U".to_string()).unwrap(),
        None,
        "on dirt"
    );
    let after = Hopper::position(&lv, &"UU".to_string()).unwrap().unwrap();
    assert_eq!(after.grid, ["G", ".", "S", "~", "."]);
    assert!(after.stars.is_empty());
    assert_eq!(analyze(&after).par, Some(2));
}
