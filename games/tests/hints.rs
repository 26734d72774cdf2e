//! Hints and positions of every game (the template included), through the JSON seam the
//! service uses: from the start a hint's `distance` is `par`; following `next` wins in
//! exactly `par` moves, one step closer each time; every position on the way that the
//! format can express verifies with `par` equal to the hint's distance; dead ends name
//! the exact number of moves to take back; the same moves always get the same hint.

use levelforge_games::game::Adapter;
use levelforge_games::template::Template;
use levelforge_games::{Difficulty, Game, Limits, Stop, registry};
use proptest::prelude::*;
use serde_json::{Value, json};

const MAX_STATES: u64 = 50_000_000;

fn games() -> Vec<&'static dyn Game> {
    static TEMPLATE: Adapter<Template> = Adapter::<Template>::NEW;
    let mut games = registry::all().to_vec();
    games.push(&TEMPLATE);
    games
}

fn generate(game: &dyn Game, difficulty: Difficulty, seed: u64) -> Value {
    let generated = game
        .generate(difficulty, seed, &Stop::never())
        .unwrap_or_else(|e| panic!("{} {difficulty} seed {seed}: {e}", game.name()));
    serde_json::from_str(&generated.json).expect("level JSON")
}

fn hint(game: &dyn Game, level: &Value, moves: &Value) -> Value {
    let limits = Limits::states(MAX_STATES);
    let first = game
        .hint(level, moves, &limits)
        .unwrap_or_else(|e| panic!("{} hint for {moves}: {e}", game.name()));
    let again = game.hint(level, moves, &limits).expect("hint again");
    assert_eq!(
        first,
        again,
        "{}: the same moves get the same hint",
        game.name()
    );
    first
}

/// Moves with one more appended: letters concatenate, lists extend.
fn append(moves: &Value, next: &Value) -> Value {
    match (moves, next) {
        (Value::String(a), Value::String(b)) => json!(format!("{a}{b}")),
        (Value::Array(a), Value::Array(b)) => Value::Array(a.iter().chain(b).cloned().collect()),
        _ => panic!("moves {moves} and next {next} differ in format"),
    }
}

fn empty_moves(level: &Value) -> Value {
    match level["solution"] {
        Value::String(_) => json!(""),
        _ => json!([]),
    }
}

/// The position `moves` reach, when the format can express it, verifies with par equal
/// to the distance the hint gives.
fn position_agrees(game: &dyn Game, level: &Value, moves: &Value, distance: u64) -> bool {
    let position = game.position(level, moves).expect("position");
    if position.is_null() {
        return false;
    }
    let limits = Limits::states(MAX_STATES);
    let report = game
        .verify(&position, &limits)
        .unwrap_or_else(|e| panic!("{} position {position} does not verify: {e}", game.name()));
    assert_eq!(
        report["par"].as_u64(),
        Some(distance),
        "{} position after {moves}: {position}",
        game.name()
    );
    true
}

/// Follows `next` from the start to a win, checking each step.
fn walk_by_hints(game: &dyn Game, difficulty: Difficulty, seed: u64) {
    let level = generate(game, difficulty, seed);
    let par = level["par"].as_u64().expect("par");
    let mut moves = empty_moves(&level);
    let start = hint(game, &level, &moves);
    assert_eq!(
        start["distance"].as_u64(),
        Some(par),
        "{}: {start}",
        game.name()
    );
    assert_eq!(start["undo"], Value::Null);
    let mut expressed = 0;
    for step in 0..par {
        let here = hint(game, &level, &moves);
        assert_eq!(here["status"], "unfinished", "{}: {here}", game.name());
        assert_eq!(
            here["distance"].as_u64(),
            Some(par - step),
            "{}",
            game.name()
        );
        expressed += usize::from(position_agrees(game, &level, &moves, par - step));
        moves = append(&moves, &here["next"]);
    }
    assert!(expressed >= 1, "{}: the start is a position", game.name());
    let end = hint(game, &level, &moves);
    assert_eq!(
        end["status"],
        "won",
        "{} {difficulty} {seed}: {moves}",
        game.name()
    );
    assert_eq!(end["distance"], 0);
    assert_eq!(end["next"], Value::Null);
    let check = game.check(&level, &moves).expect("check");
    assert_eq!(check.json["status"], "won");
    assert_eq!(u64::from(check.moves_used), par);
}

/// Plays `letters` and checks the dead-end answer at every prefix: taking back `undo`
/// moves reaches a winnable position, taking back one fewer does not.
fn dead_ends_are_exact(game: &dyn Game, level: &Value, letters: &str) {
    for n in 0..=letters.len() {
        let moves = json!(letters[..n]);
        let here = hint(game, level, &moves);
        if here["distance"].is_u64() {
            assert_eq!(here["undo"], Value::Null);
            continue;
        }
        let undo = here["undo"].as_u64().expect("a dead end has undo") as usize;
        assert!(undo >= 1 && undo <= n, "{}: {here}", game.name());
        assert_eq!(here["next"], Value::Null);
        let back = hint(game, level, &json!(letters[..n - undo]));
        assert!(back["distance"].is_u64(), "{}: {back}", game.name());
        let one_less = hint(game, level, &json!(letters[..n - undo + 1]));
        assert_eq!(one_less["distance"], Value::Null, "{}", game.name());
    }
}

#[test]
fn following_hints_wins_in_par_at_every_tier() {
    for game in games() {
        for difficulty in Difficulty::ALL {
            for seed in [1, 2] {
                walk_by_hints(game, difficulty, seed);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hints_lead_to_a_win_from_random_keys(seed in any::<u64>(), tier in 0usize..4) {
        for game in games() {
            walk_by_hints(game, Difficulty::ALL[tier], seed);
        }
    }

    /// Letter games: random play, a hint at every prefix.
    #[test]
    fn random_play_gets_exact_dead_end_answers(
        seed in 1u64..50,
        tier in 0usize..4,
        letters in "[UDLR]{0,12}",
    ) {
        for game in games() {
            let level = generate(game, Difficulty::ALL[tier], seed);
            if level["solution"].is_string() {
                dead_ends_are_exact(game, &level, &letters);
            }
        }
    }
}
