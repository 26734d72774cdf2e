//! Entry points for the fuzz targets in `fuzz/` and their regression tests: arbitrary
//! bytes driven through every registered game by the same [`Game`] seam the service uses.
//!
//! Game code must never panic on input; errors are fine. These functions panic only when
//! a game breaks a promise of the seam — the solver's own solution does not replay to a
//! win in `par` moves, a replay wins in fewer moves than the solver's `par`, or `verify`,
//! `check` and `preview_svg` disagree on whether a level is valid — because that is the
//! other kind of bug a fuzzer should report.
//!
//! Behind the `fuzzing` feature: the fuzz/ workspace enables it, and so do this crate's
//! own tests and examples (a dev-dependency on itself); the service never builds it.

use std::sync::OnceLock;

use serde_json::{Map, Number, Value};

use crate::core::{Difficulty, Limits, Status, Stop};
use crate::game::{CheckOutcome, Game, GameError};
use crate::registry;

/// The state cap of every fuzzed `verify`: small, so that one input takes microseconds,
/// and large enough that the small boards a fuzzer builds are solved completely.
pub const MAX_STATES: u64 = 20_000;

/// What one game made of one input.
#[derive(Debug)]
pub struct LevelOutcome {
    pub game: &'static str,
    /// The verifier's report, or why the level was rejected.
    pub verify: Result<Value, GameError>,
    /// Every replay tried: the input's own `moves` and `solution`, then the solver's.
    pub checks: Vec<Result<CheckOutcome, GameError>>,
}

/// `level_json`: the bytes as a level document (not JSON: a JSON string of them) for every
/// game: verify with [`MAX_STATES`], check the document's `moves` and `solution` and the
/// solver's solution, and draw the preview with and without the solution.
pub fn level_json(data: &[u8]) -> Vec<LevelOutcome> {
    let document = serde_json::from_slice(data)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(data).into_owned()));
    registry::all()
        .iter()
        .map(|&game| drive_level(game, &document))
        .collect()
}

fn drive_level(game: &'static dyn Game, document: &Value) -> LevelOutcome {
    let limits = Limits::states(MAX_STATES);
    let verify = game.verify(document, &limits);
    let valid = verify.is_ok();
    let name = game.name();
    let plain = game.preview_svg(document, false);
    assert_eq!(plain.is_ok(), valid, "{name}: preview and verify disagree");
    if let Ok(svg) = &plain {
        assert_svg(name, svg);
    }
    if let Ok(svg) = game.preview_svg(document, true) {
        assert_svg(name, &svg);
    }
    let mut checks: Vec<_> = ["moves", "solution"]
        .iter()
        .filter_map(|key| document.get(key))
        .map(|moves| game.check(document, moves))
        .collect();
    if !valid {
        for check in &checks {
            assert!(
                check.is_err(),
                "{name}: check accepts a level verify rejects"
            );
        }
    }
    let par = verify.as_ref().ok().and_then(solved_par);
    if let Some(par) = par {
        let solution = &verify.as_ref().expect("verified")["solution"];
        let replay = game
            .check(document, solution)
            .unwrap_or_else(|e| panic!("{name}: the solver's solution does not replay: {e}"));
        assert_eq!(
            replay.status,
            Status::Won,
            "{name}: the solution does not win"
        );
        assert_eq!(
            replay.moves_used, par,
            "{name}: the solution is not par long"
        );
        checks.push(Ok(replay));
        assert_par_is_optimal(name, par, &checks);
    }
    LevelOutcome {
        game: name,
        verify,
        checks,
    }
}

/// `par` of a verify report that solved the level (not one that gave up or found none).
fn solved_par(report: &Value) -> Option<u32> {
    report["par"].as_u64().map(|p| p as u32)
}

fn assert_svg(game: &str, svg: &str) {
    assert!(
        svg.starts_with("<svg") && svg.ends_with("</svg>"),
        "{game}: preview is not one svg element"
    );
}

/// No replay may win in fewer moves than the optimum the solver proved.
fn assert_par_is_optimal(game: &str, par: u32, checks: &[Result<CheckOutcome, GameError>]) {
    for check in checks.iter().flatten() {
        if check.status == Status::Won {
            assert!(
                check.moves_used >= par,
                "{game}: a replay won in {} moves, under the solver's par {par}",
                check.moves_used
            );
        }
    }
}

/// A served level of one game, fixed for the `moves` target.
pub struct FixedLevel {
    pub game: &'static dyn Game,
    pub document: Value,
    pub par: u32,
}

/// Every game's expert level of the first seed that generates (seed 1 in practice).
pub fn fixed_levels() -> &'static [FixedLevel] {
    static LEVELS: OnceLock<Vec<FixedLevel>> = OnceLock::new();
    LEVELS.get_or_init(|| registry::all().iter().map(|&g| fixed_level(g)).collect())
}

fn fixed_level(game: &'static dyn Game) -> FixedLevel {
    let generated = (1..=100)
        .find_map(|seed| game.generate(Difficulty::Expert, seed, &Stop::never()).ok())
        .unwrap_or_else(|| panic!("{}: no expert level in seeds 1..=100", game.name()));
    FixedLevel {
        game,
        document: serde_json::from_str(&generated.json).expect("served JSON parses"),
        par: generated.summary.par,
    }
}

/// What one game's fixed level made of one `moves` input.
#[derive(Debug)]
pub struct MovesOutcome {
    pub game: &'static str,
    /// The bytes themselves as the move list, when they are JSON.
    pub raw: Option<Result<CheckOutcome, GameError>>,
    /// The level's solution edited as the bytes direct (see [`mutate`]).
    pub edited: Result<CheckOutcome, GameError>,
}

/// `moves`: every game's fixed level replays the bytes as a move list (when they are
/// JSON) and its own solution edited by the bytes. No bytes: the solution itself, a win.
pub fn moves(data: &[u8]) -> Vec<MovesOutcome> {
    let raw: Option<Value> = serde_json::from_slice(data).ok();
    fixed_levels()
        .iter()
        .map(|level| {
            let name = level.game.name();
            let raw = raw.as_ref().map(|m| level.game.check(&level.document, m));
            let solution = &level.document["solution"];
            let edited_moves = mutate(solution, &mut Edits::new(data), &alphabet(solution));
            let edited = level.game.check(&level.document, &edited_moves);
            let outcome = MovesOutcome {
                game: name,
                raw,
                edited,
            };
            let checks = [outcome.raw.as_ref(), Some(&outcome.edited)];
            for check in checks.into_iter().flatten().filter_map(|c| c.as_ref().ok()) {
                if check.status == Status::Won {
                    assert!(check.moves_used >= level.par, "{name}: won under par");
                }
            }
            outcome
        })
        .collect()
}

/// The bytes that direct [`mutate`], read one at a time; exhausted means "no more edits".
pub struct Edits<'a>(std::slice::Iter<'a, u8>);

impl<'a> Edits<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Edits(data.iter())
    }

    fn next(&mut self) -> Option<u8> {
        self.0.next().copied()
    }

    fn index(&mut self, len: usize) -> usize {
        self.next().map_or(0, |b| usize::from(b) % len.max(1))
    }
}

/// Numbers an edit may put anywhere: edges of every integer type a game reads.
const EXTREMES: [i128; 8] = [
    -1,
    i64::MIN as i128,
    i64::MAX as i128,
    u64::MAX as i128,
    u32::MAX as i128,
    1 << 32,
    (1 << 32) + 1,
    1 << 60,
];

/// Letters for string edits: those of the solution, the direction letters every
/// string-move game reads, and one no game reads.
fn alphabet(solution: &Value) -> Vec<char> {
    let mut letters: Vec<char> = "UDLR?".chars().collect();
    collect_letters(solution, &mut letters);
    letters.sort_unstable();
    letters.dedup();
    letters
}

fn collect_letters(value: &Value, letters: &mut Vec<char>) {
    match value {
        Value::String(s) => letters.extend(s.chars()),
        Value::Array(items) => items.iter().for_each(|v| collect_letters(v, letters)),
        Value::Object(map) => map.values().for_each(|v| collect_letters(v, letters)),
        _ => {}
    }
}

/// A copy of `value` with edits read from `edits`: walking the value depth first, every
/// node reads one byte; below 128 it keeps the node (so that shrinking inputs lead back to
/// the solution), otherwise the byte picks an edit, which reads its operands after it.
pub fn mutate(value: &Value, edits: &mut Edits, alphabet: &[char]) -> Value {
    let Some(op) = edits.next().filter(|&op| op >= 128) else {
        return match value {
            Value::Array(items) => items.iter().map(|v| mutate(v, edits, alphabet)).collect(),
            Value::Object(map) => Value::Object(mutate_fields(map, edits, alphabet)),
            other => other.clone(),
        };
    };
    match value {
        Value::Number(n) => edit_number(n, op, edits),
        Value::String(s) => Value::String(edit_string(s, op, edits, alphabet)),
        Value::Array(items) => edit_list(items.clone(), op, edits)
            .iter()
            .map(|v| mutate(v, edits, alphabet))
            .collect(),
        Value::Object(map) => Value::Object(mutate_fields(map, edits, alphabet)),
        other => other.clone(),
    }
}

fn mutate_fields(
    map: &Map<String, Value>,
    edits: &mut Edits,
    alphabet: &[char],
) -> Map<String, Value> {
    map.iter()
        .map(|(k, v)| (k.clone(), mutate(v, edits, alphabet)))
        .collect()
}

fn edit_number(n: &Number, op: u8, edits: &mut Edits) -> Value {
    let Some(v) = n.as_i128() else {
        return Value::Number(n.clone());
    };
    let edited = match op % 4 {
        0 => v + 1,
        1 => v - 1,
        2 => v + i128::from(edits.next().unwrap_or(0) as i8),
        _ => EXTREMES[edits.index(EXTREMES.len())],
    };
    Number::from_i128(edited).map_or(Value::Null, Value::Number)
}

/// One to eight letter edits: replace, remove, insert, or cut the rest.
fn edit_string(s: &str, op: u8, edits: &mut Edits, alphabet: &[char]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..=op % 8 {
        let at = edits.index(chars.len() + 1);
        let letter = alphabet[edits.index(alphabet.len())];
        match edits.next().unwrap_or(0) % 4 {
            0 if at < chars.len() => chars[at] = letter,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 => chars.insert(at, letter),
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

/// Remove, duplicate or swap elements, cut the rest, or reverse the list.
fn edit_list(mut items: Vec<Value>, op: u8, edits: &mut Edits) -> Vec<Value> {
    if items.is_empty() {
        return items;
    }
    let at = edits.index(items.len());
    match op % 5 {
        0 => {
            items.remove(at);
        }
        1 => items.insert(at, items[at].clone()),
        2 => {
            let other = edits.index(items.len());
            items.swap(at, other);
        }
        3 => items.truncate(at),
        _ => items.reverse(),
    }
    items
}

/// Seed inputs for `level_json`: `(file name, level JSON)` of every game and tier, seeds
/// 1 and 2.
pub fn seed_levels() -> Vec<(String, String)> {
    let mut seeds = Vec::new();
    for game in registry::all() {
        for difficulty in Difficulty::ALL {
            for seed in 1..=2 {
                if let Ok(generated) = game.generate(difficulty, seed, &Stop::never()) {
                    let name = format!("{}-{difficulty}-{seed}.json", game.name());
                    seeds.push((name, generated.json));
                }
            }
        }
    }
    seeds
}

/// A libFuzzer dictionary: every key and short string of the seed levels, JSON
/// punctuation, and the extreme numbers, so that mutations speak the games' shapes.
pub fn dictionary() -> String {
    let mut tokens: Vec<String> = ["{", "}", "[", "]", ",", ":", "null", "true", "\"\""]
        .map(String::from)
        .into();
    tokens.extend(EXTREMES.iter().map(|n| n.to_string()));
    for (_, json) in seed_levels() {
        let document: Value = serde_json::from_str(&json).expect("served JSON parses");
        collect_tokens(&document, &mut tokens);
    }
    tokens.sort_unstable();
    tokens.dedup();
    tokens
        .iter()
        .map(|t| format!("\"{}\"\n", t.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect()
}

fn collect_tokens(value: &Value, tokens: &mut Vec<String>) {
    match value {
        Value::String(s) if s.len() <= 16 => tokens.push(format!("\"{s}\"")),
        Value::Array(items) => items.iter().for_each(|v| collect_tokens(v, tokens)),
        Value::Object(map) => {
            for (k, v) in map {
                tokens.push(format!("\"{k}\":"));
                collect_tokens(v, tokens);
            }
        }
        _ => {}
    }
}
