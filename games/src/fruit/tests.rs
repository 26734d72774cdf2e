//! Solver and replay tests for fruit on hand-worked boards.

use super::*;
use crate::core::Stop;

pub(super) fn level(rows: &[&str]) -> FruitLevel {
    FruitLevel {
        width: rows[0].len(),
        height: rows.len(),
        grid: rows.iter().map(|r| r.to_string()).collect(),
        one_ways: vec![],
        anteaters: vec![],
    }
}

fn analyze(lv: &FruitLevel) -> Analysis<String, FruitMetrics> {
    let stop = Stop::never();
    Fruit::analyze(
        lv,
        &Limits {
            max_states: 1_000_000,
            stop: &stop,
        },
    )
    .unwrap()
}

#[test]
fn one_tilt_level() {
    let a = analyze(&level(&["######", "#a..a#", "######"]));
    assert_eq!(a.par, Some(1));
    // Left and right both win at once: two optimal solutions.
    assert_eq!(a.solution.as_deref(), Some("L"));
    assert_eq!(a.solution_count, 2);
    assert_eq!(a.extra.dead_ends, 0);
}

#[test]
fn two_move_level_counts_every_optimal_solution() {
    // No single tilt brings the pair together. Each first tilt leaves them in one row or
    // column with a gap, and either tilt along it closes the gap: U then L or R, D then
    // L or R, L then U or D, R then U or D — eight optimal solutions.
    let lv = level(&["######", "#a...#", "#.##.#", "#...a#", "######"]);
    let a = analyze(&lv);
    assert_eq!(a.par, Some(2));
    assert_eq!(a.solution.as_deref(), Some("UL"));
    assert_eq!(a.solution_count, 8);
    let replay = Fruit::replay(&lv, a.solution.as_ref().unwrap()).unwrap();
    assert_eq!((replay.status, replay.moves_used), (Status::Won, 2));
}

#[test]
fn level_with_only_losing_moves_is_unsolvable_and_counts_dead_ends() {
    // Every tilt drives a fruit into mud, or changes nothing.
    let lv = level(&["#######", "#~a~a~#", "#######"]);
    let a = analyze(&lv);
    assert_eq!(a.par, None);
    assert_eq!(a.solution, None);
    // Only the start is reachable, and it cannot win.
    assert_eq!(a.extra.dead_ends, 1);
    assert_eq!(a.extra.reachable, 1);
}

#[test]
fn replay_reports_loss_and_ignores_moves_after_it() {
    let lv = level(&["######", "#a~.a#", "#....#", "######"]);
    let r = Fruit::replay(&lv, &"RUDL".to_string()).unwrap();
    assert_eq!(r.status, Status::Lost);
    assert_eq!((r.moves_used, r.moves_ignored), (1, 3));
    assert!(r.reason.unwrap().contains("mud"));
}

#[test]
fn replay_counts_non_moves_and_stops_at_the_win() {
    let lv = level(&["######", "#a..a#", "######"]);
    let r = Fruit::replay(&lv, &"UUR".to_string()).unwrap();
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 3, 0)
    );
    assert_eq!(Fruit::medals(1, &r), Vec::<&str>::new());
    let r = Fruit::replay(&lv, &"RL".to_string()).unwrap();
    assert_eq!(
        (r.status, r.moves_used, r.moves_ignored),
        (Status::Won, 1, 1)
    );
    assert_eq!(Fruit::medals(1, &r), vec!["par"]);
    let r = Fruit::replay(&lv, &"U".to_string()).unwrap();
    assert_eq!(r.status, Status::Unfinished);
}

#[test]
fn replay_rejects_letters_that_are_not_moves() {
    let lv = level(&["######", "#a..a#", "######"]);
    let err = Fruit::replay(&lv, &"RX".to_string()).err().unwrap();
    assert_eq!(err.rule, "moves.letters");
}

#[test]
fn a_stone_on_mud_is_never_a_start() {
    // The un-solve trick must skip boards the grid cannot express.
    let lv = level(&["#######", "#o~...#", "#a...a#", "#######"]);
    let (board, state) = rules::Board::compile(&lv);
    assert!(board.expressible(&state));
    let mut moved = state.clone();
    moved[1] = rules::bit(rules::cell_of(2, 1));
    assert!(!board.expressible(&moved));
}

/// Every move string of exactly `len` letters.
fn all_sequences(len: u32) -> impl Iterator<Item = String> {
    (0..4u64.pow(len)).map(move |mut code| {
        (0..len)
            .map(|_| {
                let letter = ['U', 'D', 'L', 'R'][(code % 4) as usize];
                code /= 4;
                letter
            })
            .collect()
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, failure_persistence: None, ..Default::default() })]

    /// Independent of the solver: replaying every sequence shorter than par never wins
    /// (a win at any prefix would show up as a won replay of that prefix).
    #[test]
    fn no_sequence_shorter_than_par_wins(seed in proptest::prelude::any::<u64>(), tier in 0usize..2) {
        let stop = Stop::never();
        let accepted = crate::game::generate_level::<Fruit>(Difficulty::ALL[tier], seed, &stop).unwrap();
        let level = &accepted.level;
        for sequence in all_sequences(accepted.par - 1) {
            let replay = Fruit::replay(level, &sequence).unwrap();
            proptest::prop_assert_ne!(replay.status, Status::Won, "{} wins before par {}", sequence, accepted.par);
        }
        let solution = accepted.analysis.solution.clone().unwrap();
        let replay = Fruit::replay(level, &solution).unwrap();
        proptest::prop_assert_eq!((replay.status, replay.moves_used), (Status::Won, accepted.par));
    }
}

fn hint(lv: &FruitLevel, moves: &str) -> crate::core::Hint<String> {
    let limits = Limits::states(1_000_000);
    Fruit::hint(lv, &moves.to_string(), &limits).unwrap()
}

#[test]
fn hints_follow_the_optimal_line_and_take_back_a_losing_tilt() {
    // Left joins the pair; down sinks the left fruit in the mud. Up and right change
    // nothing, so they are not moves.
    let lv = level(&["#####", "#a.a#", "#~..#", "#####"]);
    let start = hint(&lv, "");
    assert_eq!(
        (start.distance, start.next.as_deref()),
        (Some(1), Some("L"))
    );
    let sunk = hint(&lv, "D");
    assert_eq!(sunk.status, Status::Lost);
    assert_eq!((sunk.distance, sunk.next, sunk.undo), (None, None, Some(1)));
    // Moves after the loss are taken back too: `undo` counts from the end of `moves`.
    assert_eq!(hint(&lv, "DL").undo, Some(2));
    let won = hint(&lv, "L");
    assert_eq!(
        (won.status, won.distance, won.next),
        (Status::Won, Some(0), None)
    );
    assert_eq!(won.conflict, None);
}

#[test]
fn the_position_is_the_board_after_the_tilts() {
    let lv = level(&["######", "#a...#", "#.##.#", "#...a#", "######"]);
    let after_up = Fruit::position(&lv, &"U".to_string()).unwrap().unwrap();
    assert_eq!(
        after_up.grid,
        ["######", "#a..a#", "#.##.#", "#....#", "######"]
    );
    assert_eq!(analyze(&after_up).par, Some(1));
    assert_eq!(hint(&lv, "U").distance, Some(1));
    // Won: no fruit is left, and a level needs some.
    assert_eq!(Fruit::position(&lv, &"UL".to_string()).unwrap(), None);
}

/// A state of `W` words with fruit on inner cells of an 8x8 board (a colour in two cells
/// or gone) and stones on every inner cell left.
fn inner_state<const W: usize>(seed: u64) -> [u64; W] {
    let inner: Vec<usize> = (1..7)
        .flat_map(|y| (1..7).map(move |x| rules::cell_of(x, y)))
        .collect();
    let mut free = inner.clone();
    let mut pick = |k: u64| free.remove((seed.wrapping_mul(k + 7) as usize) % free.len());
    let mut state = [0u64; W];
    for (i, word) in state[..W - 1].iter_mut().enumerate() {
        if (seed >> i) & 1 == 0 {
            *word = rules::bit(pick(2 * i as u64)) | rules::bit(pick(2 * i as u64 + 1));
        }
    }
    state[W - 1] = free
        .iter()
        .take(seed as usize % 20)
        .fold(0, |a, &c| a | rules::bit(c));
    state
}

fn round_trip<const W: usize, const K: usize>() {
    for seed in 0..200 {
        let state = inner_state::<W>(seed);
        let key = rules::pack::<W, K>(&state);
        assert_eq!(rules::unpack::<W, K>(&key), state, "seed {seed}");
        assert_eq!(rules::packed_stones(&key, W - 1), state[W - 1]);
        let left = state[..W - 1].iter().filter(|&&w| w != 0).count() as u32;
        assert_eq!(rules::packed_pairs(&key, W - 1), left);
    }
}

#[test]
fn packed_keys_round_trip_at_every_width() {
    assert_eq!(rules::key_words(4), 3, "three colours in 12 bytes");
    assert_eq!(rules::key_words(7), 3, "six colours in 12 bytes");
    assert_eq!(rules::key_words(9), 4, "eight colours in 16 bytes");
    round_trip::<2, { rules::key_words(2) }>();
    round_trip::<4, { rules::key_words(4) }>();
    round_trip::<5, { rules::key_words(5) }>();
    round_trip::<6, { rules::key_words(6) }>();
    round_trip::<7, { rules::key_words(7) }>();
    round_trip::<8, { rules::key_words(8) }>();
    round_trip::<9, { rules::key_words(9) }>();
}

/// The bench level and the levels of seeds `1..=seeds` of every tier.
fn bench_and_generated_levels(seeds: u64, limits: &Limits) -> Vec<FruitLevel> {
    let generated = Difficulty::ALL.into_iter().flat_map(|difficulty| {
        (1..=seeds).map(move |seed| {
            crate::game::generate_level::<Fruit>(difficulty, seed, limits.stop)
                .unwrap()
                .level
        })
    });
    std::iter::once(Fruit::bench_level())
        .chain(generated)
        .collect()
}

/// The analysis's solution and dead ends, taken without the distances, are the ones the
/// distances give: on the bench level and on a level of every tier.
#[test]
fn solution_and_dead_ends_match_the_distances() {
    let limits = Limits::states(1_000_000);
    let levels = bench_and_generated_levels(3, &limits);
    for lv in &levels {
        let (board, start) = Board::compile(lv);
        let graph = explore(&board, &start, &limits).unwrap();
        let dist = graph.distance_to_win();
        assert_eq!(graph.shortest_win(), graph.shortest_win_from(0, &dist));
        let by_distance = graph.dead_ends_by_distance(&dist);
        assert_eq!(graph.dead_ends(), by_distance);
    }
}

/// The portable search and the one compiled with the bit instructions build the same
/// graph, state for state and edge for edge (a CPU without them takes the first; this
/// one takes the second, so only this test runs the first here).
#[test]
#[cfg(target_arch = "x86_64")]
fn both_routes_build_the_same_graph() {
    if !bit_instructions() {
        return;
    }
    let limits = Limits::states(1_000_000);
    let levels = bench_and_generated_levels(5, &limits);
    for lv in &levels {
        let (board, start) = Board::compile(lv);
        let portable = at_width!(explore_portable(&board, start.as_slice(), &limits));
        // SAFETY: the instructions were just detected.
        let bits = unsafe {
            at_width!(explore_with_bit_instructions(
                &board,
                start.as_slice(),
                &limits
            ))
        };
        assert!(portable.unwrap() == bits.unwrap(), "{:?}", lv.grid);
    }
}
