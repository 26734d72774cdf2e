//! Replays every input under `tests/fuzz_corpus/<target>/` — crashes the fuzz targets found
//! (kept under libFuzzer's `crash-<sha1>` names by `scripts/fuzz.sh`) and hand-made nasty
//! inputs — through the same entry functions the targets call. The entry functions panic
//! on a crash or a broken seam promise; on top of that each file has its expected outcome
//! here, so a new finding fails this test until it is fixed and its outcome written down.

use std::fs;
use std::path::PathBuf;

use levelforge_games::fuzzing::{self, LevelOutcome, MovesOutcome};
use levelforge_games::{CheckOutcome, GameError, Status, registry};

/// What the games make of a `level_json` input.
#[derive(Debug)]
enum Level {
    /// Not a level document of any game (not JSON, or not in any game's shape).
    Malformed,
    /// Well-formed for some games, but no game accepts it.
    NoGame,
    /// This game verifies it; every other game rejects it.
    Valid(&'static str),
    /// This game rejects it naming this rule; every other game rejects it too.
    Breaks(&'static str, &'static str),
}

const LEVEL_FILES: &[(&str, Level)] = &[
    // Found by the fuzzer: a valid hashi level whose `solution` has a point at x or y
    // around 10^14; the preview multiplied it into SVG units and overflowed.
    (
        "crash-1ec4168007aa2699a153d8594d7d516d676fcea0",
        Level::Valid("hashi"),
    ),
    (
        "crash-d788cbda89cefaf19c7a8b951d52f901637a2171",
        Level::Valid("hashi"),
    ),
    // A one-way at x = 2^32 + 2 wrapped to x = 2 in an `i32` check, passed validation,
    // and indexed out of bounds when the board was compiled.
    (
        "fruit-one-way-past-i32.json",
        Level::Breaks("fruit", "fruit.one_way"),
    ),
    ("empty", Level::Malformed),
    ("not-utf8", Level::Malformed),
    ("deep-nesting.json", Level::Malformed),
    ("deep-grid.json", Level::Malformed),
    ("negative-size.json", Level::Malformed),
    ("huge-size.json", Level::NoGame),
    ("zero-size.json", Level::NoGame),
    (
        "hopper-star-off-the-grid.json",
        Level::Breaks("hopper", "hopper.stars"),
    ),
    (
        "tetropica-huge-hand.json",
        Level::Breaks("tetropica", "tetropica.hand_size"),
    ),
    ("tetropica-moves-far.json", Level::Valid("tetropica")),
];

/// Which replay of a `moves` input an expectation is about.
#[derive(Debug)]
enum Replayed {
    /// The bytes themselves as the move list.
    Raw,
    /// The level's solution edited by the bytes.
    Edited,
}

/// How that replay ended.
#[derive(Debug)]
enum Ends {
    /// Ok with this status.
    Status(Status),
    /// A rule error with this rule.
    Rule(&'static str),
    /// Not a move list of the game.
    Malformed,
}

const MOVES_FILES: &[(&str, &str, Replayed, Ends)] = &[
    (
        "empty",
        "fruit",
        Replayed::Edited,
        Ends::Status(Status::Won),
    ),
    (
        "hashi-link-far.json",
        "hashi",
        Replayed::Raw,
        Ends::Rule("hashi.link_outside"),
    ),
    (
        "hashi-link-far.json",
        "skiddy",
        Replayed::Raw,
        Ends::Malformed,
    ),
    (
        "tetropica-cells-far.json",
        "tetropica",
        Replayed::Raw,
        Ends::Rule("move.outside"),
    ),
    (
        "long-moves.json",
        "hopper",
        Replayed::Raw,
        Ends::Status(Status::Lost),
    ),
    (
        "long-moves.json",
        "tetropica",
        Replayed::Raw,
        Ends::Malformed,
    ),
    (
        "edits-not-json",
        "skiddy",
        Replayed::Edited,
        Ends::Status(Status::Unfinished),
    ),
];

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_corpus")
        .join(target);
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into();
            (name, fs::read(&path).expect("corpus file"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_level_json_input_has_its_expected_outcome() {
    let files = corpus("level_json");
    for (name, bytes) in &files {
        let Some((_, expected)) = LEVEL_FILES.iter().find(|(file, _)| file == name) else {
            panic!("level_json/{name}: a new finding; fix it, then list its outcome here");
        };
        let outcomes = fuzzing::level_json(bytes);
        assert_eq!(outcomes.len(), registry::all().len());
        for outcome in &outcomes {
            assert_level(name, expected, outcome);
        }
    }
    for (file, _) in LEVEL_FILES {
        assert!(files.iter().any(|(name, _)| name == file), "{file} missing");
    }
}

fn assert_level(name: &str, expected: &Level, outcome: &LevelOutcome) {
    let game = outcome.game;
    let context = format!("level_json/{name}, {game}: {:?}", outcome.verify);
    match (expected, &outcome.verify) {
        (Level::Malformed, Err(GameError::Malformed(_))) => {}
        (Level::Valid(g), Ok(report)) if *g == game => {
            assert_eq!(report["valid"], true, "{context}");
        }
        (Level::Breaks(g, rule), Err(GameError::Rule(e))) if *g == game => {
            assert_eq!(e.rule, *rule, "{context}");
        }
        (Level::NoGame | Level::Valid(_) | Level::Breaks(..), Err(_)) => {
            let named = matches!(expected, Level::Valid(g) | Level::Breaks(g, _) if *g == game);
            assert!(!named, "{context}: expected {expected:?}");
        }
        _ => panic!("{context}: expected {expected:?}"),
    }
}

#[test]
fn every_moves_input_has_its_expected_outcome() {
    let files = corpus("moves");
    for (name, bytes) in &files {
        let outcomes = fuzzing::moves(bytes);
        assert_eq!(outcomes.len(), registry::all().len());
        let expectations: Vec<_> = MOVES_FILES.iter().filter(|e| e.0 == name).collect();
        assert!(
            !expectations.is_empty(),
            "moves/{name}: a new finding; fix it, then list its outcome here"
        );
        for (_, game, replayed, ends) in expectations {
            let outcome = outcomes.iter().find(|o| o.game == *game).expect("game");
            assert_replay(name, outcome, replayed, ends);
        }
    }
    for (file, ..) in MOVES_FILES {
        assert!(files.iter().any(|(name, _)| name == file), "{file} missing");
    }
}

fn assert_replay(name: &str, outcome: &MovesOutcome, replayed: &Replayed, ends: &Ends) {
    let result = match replayed {
        Replayed::Raw => outcome.raw.as_ref().expect("the input is JSON"),
        Replayed::Edited => &outcome.edited,
    };
    let context = format!("moves/{name}, {} {replayed:?}", outcome.game);
    match (ends, result) {
        (Ends::Status(status), Ok(check)) => assert_eq!(check.status, *status, "{context}"),
        (Ends::Rule(rule), Err(GameError::Rule(e))) => assert_eq!(e.rule, *rule, "{context}"),
        (Ends::Malformed, Err(GameError::Malformed(_))) => {}
        _ => panic!("{context}: expected {ends:?}, got {result:?}"),
    }
}

/// No edits: every game's fixed level replays its own solution to a win in par moves.
#[test]
fn unedited_solutions_win_in_par() {
    for (outcome, level) in fuzzing::moves(b"").iter().zip(fuzzing::fixed_levels()) {
        let check: &CheckOutcome = outcome.edited.as_ref().expect("the solution replays");
        assert_eq!(check.status, Status::Won, "{}", outcome.game);
        assert_eq!(check.moves_used, level.par, "{}", outcome.game);
        assert!(outcome.raw.is_none(), "no bytes are no JSON");
    }
}

/// Edits reach deep: over a few hundred pseudo-random sparse edits every game sees
/// replays that run (won, lost or unfinished) and replays that are rejected, so the
/// `moves` target is not stuck on one kind of outcome.
#[test]
fn edits_reach_every_kind_of_outcome() {
    let mut seen = vec![(false, false); registry::all().len()];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..400 {
        let bytes: Vec<u8> = (0..24)
            .map(|_| {
                // xorshift64: any spread of bytes will do.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Sparse edits: one node in eight (a byte of 128 or more edits its node).
                let byte = state as u8;
                if state >> 61 == 0 {
                    byte | 0x80
                } else {
                    byte & 0x7f
                }
            })
            .collect();
        for (g, outcome) in fuzzing::moves(&bytes).iter().enumerate() {
            match outcome.edited {
                Ok(_) => seen[g].0 = true,
                Err(_) => seen[g].1 = true,
            }
        }
    }
    for (game, seen) in registry::all().iter().zip(&seen) {
        assert_eq!(*seen, (true, true), "{}: (ran, rejected)", game.name());
    }
}
