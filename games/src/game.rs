//! The object-safe face of a [`Puzzle`]: JSON in, JSON out, and the generation loop.
//! The service layer sees only [`Game`]; it never learns any one game's rules.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::bot::{BotPlay, Skill};
use crate::core::{
    Analysis, Difficulty, Exhausted, HintError, Limits, MoveList, Piece, Puzzle, Rejection,
    RuleError, Status, Stop, Tier,
};
use crate::document::{LevelDocument, MetricsDocument};
use crate::prior::PriorModel;
use crate::rng::LevelRng;

/// A game as the service uses it.
pub trait Game: Send + Sync {
    fn name(&self) -> &'static str;
    fn title(&self) -> &'static str;
    fn version(&self) -> u32;
    fn solution_count_cap(&self) -> u64;
    /// The `metrics` entries `/stats` summarises (see [`Puzzle::KEY_METRICS`]).
    fn key_metrics(&self) -> &'static [&'static str];
    /// The pieces an editor places on the grid (see [`Puzzle::PALETTE`]).
    fn palette(&self) -> &'static [Piece];
    /// Every tier's parameters and acceptance window, for `GET /games`.
    fn tiers(&self) -> Value;
    /// Runs the seeded generation loop for one key.
    fn generate(
        &self,
        difficulty: Difficulty,
        seed: u64,
        stop: &Stop,
    ) -> Result<Generated, GenerateError>;
    /// The solver's full report on a level document (par, solution and metrics ignored).
    fn verify(&self, level: &Value, limits: &Limits) -> Result<Value, GameError>;
    /// Replays `moves` (the game's own move format) on a level document.
    fn check(&self, level: &Value, moves: &Value) -> Result<CheckOutcome, GameError>;
    /// An SVG picture of a level document, with its `solution` drawn when asked.
    fn preview_svg(&self, level: &Value, show_solution: bool) -> Result<String, GameError>;
    /// A picture of the position `moves` reach on a level document: the position's own
    /// preview, or, where the level format cannot express it (a won or lost board, links
    /// drawn), the level with the moves drawn over it as a solution would be.
    fn preview_after(&self, level: &Value, moves: &Value) -> Result<String, GameError>;
    /// A hint for the position `moves` reach on a level document (see [`Puzzle::hint`]).
    fn hint(&self, level: &Value, moves: &Value, limits: &Limits) -> Result<Value, GameError>;
    /// The position `moves` reach as a level document `verify` accepts, or `null` when
    /// the format cannot express it (see [`Puzzle::position`]).
    fn position(&self, level: &Value, moves: &Value) -> Result<Value, GameError>;
    /// The first `count` of `moves` (all of them when there are fewer), in the same format.
    fn moves_prefix(&self, moves: &Value, count: usize) -> Result<Value, GameError>;
    /// A simulated player of `skill` plays a level document ([`crate::bot::play`]): its
    /// moves in the game's move format, to judge with [`Game::check`], and its move
    /// budget. The document's `par` sets the budget; nothing else beyond the level is read.
    fn bot_play(
        &self,
        level: &Value,
        skill: &Skill,
        rng: &mut LevelRng,
    ) -> Result<BotPlay<Value>, GameError>;
    /// The canonical text of a level document's level: the game's own fields in the
    /// game's order, nothing else (no `par`, `solution`, `metrics`, key or whitespace), so
    /// that two documents of the same level have the same text.
    fn canonical_level(&self, level: &Value) -> Result<String, GameError>;
    /// A hand-made level document proven for serving: validated, solved at `limits`, and
    /// written as a level document of difficulty `custom` whose seed is
    /// [`content_seed`] of its canonical level, with the solver's par, solution and
    /// metrics like a generated one. [`UNSOLVABLE`] when the solver finds no solution.
    fn hand_made(&self, level: &Value, limits: &Limits) -> Result<Generated, GameError>;
    /// The game's fixed heavy level for solver benchmarks, as a level document.
    fn bench_level(&self) -> Value;
    /// The game's predicted-difficulty model ([`crate::prior`]); a generated level's
    /// [`Summary::prior_rating`] is its prediction.
    fn prior_model(&self) -> &'static PriorModel;
    /// The JSON Schemas of the game's documents and rule ids, by name (see [`crate::contract`]).
    fn schemas(&self) -> BTreeMap<String, Value>;
}

/// An accepted level as the service stores it.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The level JSON, exactly the bytes to store and serve.
    pub json: String,
    pub summary: Summary,
}

/// The figures of an accepted level that the store keeps as columns.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub par: u32,
    pub attempts: u32,
    pub generate_ms: u64,
    pub solve_ms: u64,
    pub states: u64,
    pub solution_count: u64,
    /// The full `metrics` object of the level: the very bytes inside [`Generated::json`],
    /// serialised once and stored as they are.
    pub metrics: Box<RawValue>,
    /// Why earlier candidates were thrown away, by reason.
    pub rejections: BTreeMap<&'static str, u32>,
    /// The rating the game's model predicts from these figures ([`crate::prior`]): the
    /// level's starting rating. Kept beside the level, never inside its bytes.
    pub prior_rating: f64,
}

/// A replay outcome: the JSON answer and the fields the store keeps.
#[derive(Clone, Debug)]
pub struct CheckOutcome {
    pub json: Value,
    pub status: Status,
    pub moves_used: u32,
}

/// Errors of the game layer on client input.
#[derive(Debug)]
pub enum GameError {
    /// The document is not in the game's JSON shape (missing field, wrong type).
    Malformed(String),
    /// Well-formed, but breaks a rule.
    Rule(RuleError),
    /// A search ran out of its state or time budget.
    GaveUp(Exhausted),
    /// The game cannot answer this for this level (not the client's fault).
    Unsupported(&'static str),
}

impl From<HintError> for GameError {
    fn from(e: HintError) -> Self {
        match e {
            HintError::Rule(rule) => GameError::Rule(rule),
            HintError::GaveUp(exhausted) => GameError::GaveUp(exhausted),
            HintError::NotUnique => {
                GameError::Unsupported("hints need a level with exactly one solution")
            }
        }
    }
}

/// The rule a hand-made level breaks when the solver proves it has no solution.
pub const UNSOLVABLE: &str = "level.unsolvable";

/// The seed that addresses a hand-made level: the first bytes of the SHA-256 of its game
/// and canonical text, cut to 53 bits so that JavaScript's numbers hold it exactly.
pub fn content_seed(game: &str, canonical: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new()
        .chain_update(game.as_bytes())
        .chain_update(b"\n")
        .chain_update(canonical.as_bytes())
        .finalize();
    let first: [u8; 8] = digest[..8].try_into().expect("a SHA-256 has 32 bytes");
    u64::from_le_bytes(first) & ((1 << 53) - 1)
}

/// Why no level came out of a generation run.
#[derive(Debug)]
pub enum GenerateError {
    /// The difficulty has no generator ([`Difficulty::Custom`]: hand-made levels).
    NotGenerated,
    /// The time budget ran out or the run was cancelled.
    Stopped { attempts: u32 },
    /// Every candidate up to the tier's cap was rejected.
    NoCandidateAccepted {
        attempts: u32,
        rejections: BTreeMap<&'static str, u32>,
    },
    /// The generator built a level its own validator rejects: a bug in the game.
    InvalidCandidate(RuleError),
}

impl std::error::Error for GameError {}
impl std::error::Error for GenerateError {}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Malformed(m) => f.write_str(m),
            GameError::Rule(r) => r.fmt(f),
            GameError::GaveUp(e) => e.fmt(f),
            GameError::Unsupported(m) => f.write_str(m),
        }
    }
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::NotGenerated => {
                f.write_str("hand-made (`custom`) levels are published, not generated")
            }
            GenerateError::Stopped { attempts } => {
                write!(
                    f,
                    "generation stopped by its time budget after {attempts} attempts"
                )
            }
            GenerateError::NoCandidateAccepted {
                attempts,
                rejections,
            } => {
                write!(
                    f,
                    "no candidate accepted in {attempts} attempts ({rejections:?})"
                )
            }
            GenerateError::InvalidCandidate(rule) => {
                write!(f, "the generator produced an invalid level: {rule}")
            }
        }
    }
}

/// A level the generation loop accepted, with everything known about it.
pub struct Accepted<P: Puzzle> {
    pub level: P::Level,
    pub analysis: Analysis<P::Solution, P::Metrics>,
    pub par: u32,
    pub attempts: u32,
    pub generate_ms: u64,
    pub solve_ms: u64,
    pub rejections: BTreeMap<&'static str, u32>,
}

/// The generation loop: candidate → validate → analyze → accept, up to the tier's cap.
/// Deterministic in (game, difficulty, seed, version) unless stopped.
pub fn generate_level<P: Puzzle>(
    difficulty: Difficulty,
    seed: u64,
    stop: &Stop,
) -> Result<Accepted<P>, GenerateError> {
    if !difficulty.is_generated() {
        return Err(GenerateError::NotGenerated);
    }
    let tier = P::tier(difficulty);
    let mut rng = LevelRng::for_key(P::NAME, difficulty, seed, P::VERSION);
    let limits = Limits {
        max_states: tier.max_states,
        stop,
    };
    let started = Instant::now();
    let mut solving = Duration::ZERO;
    let mut rejections = BTreeMap::new();
    for attempt in 1..=tier.max_attempts {
        if stop.requested() {
            return Err(GenerateError::Stopped { attempts: attempt });
        }
        let level = match P::generate(&tier.params, &mut rng, &limits) {
            Ok(level) => level,
            Err(Rejection::Stopped) => return Err(GenerateError::Stopped { attempts: attempt }),
            Err(Rejection::Candidate(why)) => {
                *rejections.entry(why).or_insert(0) += 1;
                continue;
            }
        };
        P::validate(&level).map_err(GenerateError::InvalidCandidate)?;
        let solve_started = Instant::now();
        let analysis = P::analyze(&level, &limits);
        solving += solve_started.elapsed();
        let verdict = match analysis {
            Err(Exhausted::Stopped) => return Err(GenerateError::Stopped { attempts: attempt }),
            Err(Exhausted::States(_)) => Err("state budget"),
            Ok(analysis) => judge::<P>(&tier, analysis),
        };
        match verdict {
            Ok((par, analysis)) => {
                return Ok(Accepted {
                    level,
                    analysis,
                    par,
                    attempts: attempt,
                    generate_ms: started.elapsed().as_millis() as u64,
                    solve_ms: solving.as_millis() as u64,
                    rejections,
                });
            }
            Err(why) => *rejections.entry(why).or_insert(0) += 1,
        }
    }
    Err(GenerateError::NoCandidateAccepted {
        attempts: tier.max_attempts,
        rejections,
    })
}

/// The level a key gets, for fixed benchmark inputs ([`Puzzle::bench_level`]).
///
/// # Panics
/// When the key has no level; benchmark keys are chosen among ones that do, and
/// `every_bench_level_is_valid_and_solvable` checks them.
pub fn level_of_key<P: Puzzle>(difficulty: Difficulty, seed: u64) -> P::Level {
    generate_level::<P>(difficulty, seed, &Stop::never())
        .expect("benchmark keys have levels")
        .level
}

type AnalysisOf<P> = Analysis<<P as Puzzle>::Solution, <P as Puzzle>::Metrics>;

fn judge<P: Puzzle>(
    tier: &Tier<P::Params>,
    analysis: AnalysisOf<P>,
) -> Result<(u32, AnalysisOf<P>), &'static str> {
    let par = analysis.par.ok_or("unsolvable")?;
    if !tier.par_in_window(par) {
        return Err("par outside window");
    }
    P::accept(tier, &analysis)?;
    Ok((par, analysis))
}

impl<P: Puzzle> Accepted<P> {
    /// The level's `metrics` object, serialised once for the document and the store.
    fn metrics_json(&self) -> Box<RawValue> {
        serde_json::value::to_raw_value(&MetricsDocument {
            attempts: self.attempts,
            generate_ms: self.generate_ms,
            solve_ms: self.solve_ms,
            states: self.analysis.states,
            solution_count: self.analysis.solution_count,
            solution_count_cap: P::SOLUTION_COUNT_CAP,
            extra: &self.analysis.extra,
        })
        .expect("metrics serialize")
    }

    /// The level JSON of docs/games.md, in a fixed field order, around its `metrics` object.
    fn to_json(&self, difficulty: Difficulty, seed: u64, metrics: &RawValue) -> String {
        let solution = self
            .analysis
            .solution
            .as_ref()
            .expect("an accepted level has a solution");
        let document = LevelDocument {
            game: P::NAME,
            difficulty,
            seed,
            version: P::VERSION,
            level: &self.level,
            par: self.par,
            solution,
            metrics,
            metrics_type: PhantomData::<P::Metrics>,
        };
        serde_json::to_string(&document).expect("level documents serialize")
    }
}

/// Wraps a [`Puzzle`] as a [`Game`].
pub struct Adapter<P>(PhantomData<P>);

impl<P> Adapter<P> {
    pub const NEW: Adapter<P> = Adapter(PhantomData);
}

impl<P: Puzzle> Adapter<P> {
    /// An accepted level as the service stores it: its document and its columns.
    fn served(&self, accepted: Accepted<P>, difficulty: Difficulty, seed: u64) -> Generated {
        let metrics = accepted.metrics_json();
        let json = accepted.to_json(difficulty, seed, &metrics);
        let mut summary = Summary {
            par: accepted.par,
            attempts: accepted.attempts,
            generate_ms: accepted.generate_ms,
            solve_ms: accepted.solve_ms,
            states: accepted.analysis.states,
            solution_count: accepted.analysis.solution_count,
            metrics,
            rejections: accepted.rejections,
            prior_rating: 0.0,
        };
        summary.prior_rating = self
            .prior_model()
            .predict_text(summary.par, summary.metrics.get());
        Generated { json, summary }
    }
}

fn parse_level<P: Puzzle>(document: &Value) -> Result<P::Level, GameError> {
    let level: P::Level = serde_json::from_value(document.clone())
        .map_err(|e| GameError::Malformed(format!("not a {} level: {e}", P::NAME)))?;
    P::validate(&level).map_err(GameError::Rule)?;
    Ok(level)
}

fn parse_moves<P: Puzzle>(moves: &Value) -> Result<P::Moves, GameError> {
    serde_json::from_value(moves.clone())
        .map_err(|e| GameError::Malformed(format!("not a {} move list: {e}", P::NAME)))
}

impl<P: Puzzle> Game for Adapter<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn title(&self) -> &'static str {
        P::TITLE
    }

    fn version(&self) -> u32 {
        P::VERSION
    }

    fn solution_count_cap(&self) -> u64 {
        P::SOLUTION_COUNT_CAP
    }

    fn key_metrics(&self) -> &'static [&'static str] {
        P::KEY_METRICS
    }

    fn palette(&self) -> &'static [Piece] {
        P::PALETTE
    }

    fn tiers(&self) -> Value {
        Difficulty::ALL
            .iter()
            .map(|&d| {
                let mut tier = serde_json::to_value(P::tier(d)).expect("tiers serialize");
                tier["difficulty"] = json!(d);
                tier
            })
            .collect()
    }

    fn generate(
        &self,
        difficulty: Difficulty,
        seed: u64,
        stop: &Stop,
    ) -> Result<Generated, GenerateError> {
        let accepted = generate_level::<P>(difficulty, seed, stop)?;
        Ok(self.served(accepted, difficulty, seed))
    }

    fn canonical_level(&self, document: &Value) -> Result<String, GameError> {
        let level = parse_level::<P>(document)?;
        Ok(serde_json::to_string(&level).expect("levels serialize"))
    }

    fn hand_made(&self, document: &Value, limits: &Limits) -> Result<Generated, GameError> {
        let level = parse_level::<P>(document)?;
        let canonical = serde_json::to_string(&level).expect("levels serialize");
        let seed = content_seed(P::NAME, &canonical);
        let started = Instant::now();
        let analysis = P::analyze(&level, limits).map_err(GameError::GaveUp)?;
        let solve_ms = started.elapsed().as_millis() as u64;
        let par = analysis.par.ok_or_else(|| {
            GameError::Rule(RuleError::new(
                UNSOLVABLE,
                "the solver proves this level has no solution",
            ))
        })?;
        let accepted = Accepted::<P> {
            level,
            analysis,
            par,
            // Made by hand: no candidates, no generation time.
            attempts: 0,
            generate_ms: 0,
            solve_ms,
            rejections: BTreeMap::new(),
        };
        Ok(self.served(accepted, Difficulty::Custom, seed))
    }

    fn verify(&self, document: &Value, limits: &Limits) -> Result<Value, GameError> {
        let level = parse_level::<P>(document)?;
        let started = Instant::now();
        let analysis = P::analyze(&level, limits);
        let solve_ms = started.elapsed().as_millis() as u64;
        let report = match analysis {
            Err(exhausted) => json!({
                "valid": true,
                "solvable": null,
                "gave_up": exhausted.to_string(),
                "metrics": {"solve_ms": solve_ms},
            }),
            Ok(analysis) => {
                let accepted_by: Vec<Difficulty> = Difficulty::ALL
                    .into_iter()
                    .filter(|&d| {
                        let tier = P::tier(d);
                        analysis.par.is_some_and(|par| tier.par_in_window(par))
                            && P::accept(&tier, &analysis).is_ok()
                    })
                    .collect();
                let mut metrics = serde_json::to_value(&analysis.extra).expect("metrics");
                if !metrics.is_object() {
                    metrics = json!({});
                }
                metrics["solve_ms"] = json!(solve_ms);
                metrics["states"] = json!(analysis.states);
                metrics["solution_count"] = json!(analysis.solution_count);
                metrics["solution_count_cap"] = json!(P::SOLUTION_COUNT_CAP);
                json!({
                    "valid": true,
                    "solvable": analysis.par.is_some(),
                    "par": analysis.par,
                    "solution": analysis.solution,
                    "metrics": metrics,
                    "accepted_by": accepted_by,
                    "gave_up": null,
                })
            }
        };
        Ok(report)
    }

    fn check(&self, document: &Value, moves: &Value) -> Result<CheckOutcome, GameError> {
        let level = parse_level::<P>(document)?;
        let moves = parse_moves::<P>(moves)?;
        let replay = P::replay(&level, &moves).map_err(GameError::Rule)?;
        let par = document
            .get("par")
            .and_then(Value::as_u64)
            .map(|p| p as u32);
        let medals = par.map(|p| P::medals(p, &replay)).unwrap_or_default();
        debug_assert!(medals.iter().all(|m| P::MEDALS.contains(m)), "{medals:?}");
        let mut json = serde_json::to_value(&replay).expect("replays serialize");
        json["par"] = json!(par);
        json["medals"] = json!(medals);
        Ok(CheckOutcome {
            json,
            status: replay.status,
            moves_used: replay.moves_used,
        })
    }

    fn preview_svg(&self, document: &Value, show_solution: bool) -> Result<String, GameError> {
        let level = parse_level::<P>(document)?;
        let solution: Option<P::Solution> = match document.get("solution") {
            Some(s) if show_solution && !s.is_null() => Some(
                serde_json::from_value(s.clone())
                    .map_err(|e| GameError::Malformed(format!("bad solution: {e}")))?,
            ),
            _ => None,
        };
        Ok(P::preview_svg(&level, solution.as_ref()))
    }

    fn hint(&self, document: &Value, moves: &Value, limits: &Limits) -> Result<Value, GameError> {
        let level = parse_level::<P>(document)?;
        let moves = parse_moves::<P>(moves)?;
        let hint = P::hint(&level, &moves, limits)?;
        Ok(serde_json::to_value(hint).expect("hints serialize"))
    }

    fn preview_after(&self, document: &Value, moves: &Value) -> Result<String, GameError> {
        let level = parse_level::<P>(document)?;
        let parsed = parse_moves::<P>(moves)?;
        Ok(
            match P::position(&level, &parsed).map_err(GameError::Rule)? {
                Some(position) => P::preview_svg(&position, None),
                None => {
                    // Moves that replay parse as a `Solution` in every game (letters, links
                    // on the board, placements); anything else is drawn without them.
                    let drawn: Option<P::Solution> = serde_json::from_value(moves.clone()).ok();
                    P::preview_svg(&level, drawn.as_ref())
                }
            },
        )
    }

    fn position(&self, document: &Value, moves: &Value) -> Result<Value, GameError> {
        let level = parse_level::<P>(document)?;
        let moves = parse_moves::<P>(moves)?;
        Ok(
            match P::position(&level, &moves).map_err(GameError::Rule)? {
                None => Value::Null,
                Some(position) => {
                    let mut document = serde_json::to_value(position).expect("levels serialize");
                    document["game"] = json!(P::NAME);
                    document
                }
            },
        )
    }

    fn moves_prefix(&self, moves: &Value, count: usize) -> Result<Value, GameError> {
        let prefix = parse_moves::<P>(moves)?.prefix(count);
        Ok(serde_json::to_value(prefix).expect("moves serialize"))
    }

    fn bot_play(
        &self,
        document: &Value,
        skill: &Skill,
        rng: &mut LevelRng,
    ) -> Result<BotPlay<Value>, GameError> {
        let level = parse_level::<P>(document)?;
        let par = document
            .get("par")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok())
            .ok_or_else(|| GameError::Malformed("a bot needs the level's `par`".into()))?;
        let played = crate::bot::play::<P::Play>(&level, par, skill, rng);
        Ok(BotPlay {
            moves: serde_json::to_value(played.moves).expect("moves serialize"),
            budget: played.budget,
            won: played.won,
        })
    }

    fn prior_model(&self) -> &'static PriorModel {
        // A test parses every game's file, so this cannot fail in a build that passed.
        PriorModel::committed(P::PRIOR).unwrap_or_else(|e| panic!("{}: {e}", P::NAME))
    }

    fn bench_level(&self) -> Value {
        let mut document = serde_json::to_value(P::bench_level()).expect("levels serialize");
        document["game"] = json!(P::NAME);
        document
    }

    fn schemas(&self) -> BTreeMap<String, Value> {
        crate::contract::schemas::<P>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_of_moves_replays_that_many() {
        for game in crate::registry::all() {
            let generated = game.generate(Difficulty::Hard, 1, &Stop::never()).unwrap();
            let level: Value = serde_json::from_str(&generated.json).unwrap();
            let solution = &level["solution"];
            let whole = game.moves_prefix(solution, 10_000).unwrap();
            assert_eq!(&whole, solution, "{}", game.name());
            let first = game.moves_prefix(solution, 2).unwrap();
            let outcome = game.check(&level, &first).unwrap();
            assert_eq!(
                (outcome.status, outcome.moves_used),
                (Status::Unfinished, 2),
                "{}: {first}",
                game.name()
            );
        }
    }

    #[test]
    fn the_stored_metrics_are_the_documents_own_bytes() {
        for game in crate::registry::all() {
            let generated = game.generate(Difficulty::Easy, 1, &Stop::never()).unwrap();
            let metrics = generated.summary.metrics.get();
            assert!(metrics.starts_with("{\"attempts\":"), "{metrics}");
            let document: Value = serde_json::from_str(&generated.json).unwrap();
            let parsed: Value = serde_json::from_str(metrics).unwrap();
            assert_eq!(document["metrics"], parsed, "{}", game.name());
            assert!(
                generated.json.contains(&format!("\"metrics\":{metrics}")),
                "{}",
                game.name()
            );
        }
    }

    fn fruit() -> &'static dyn Game {
        crate::registry::find("fruit").unwrap()
    }

    fn proven(document: &Value) -> Result<Generated, GameError> {
        let limits = Limits::states(1_000_000);
        fruit().hand_made(document, &limits)
    }

    #[test]
    fn a_hand_made_level_is_served_like_a_generated_one_at_the_hash_of_its_content() {
        // One tilt left or right brings the pair together: par 1.
        let level = json!({"game": "fruit", "width": 6, "height": 3,
            "grid": ["######", "#a..a#", "######"], "one_ways": [], "anteaters": []});
        let made = proven(&level).unwrap();
        let document: Value = serde_json::from_str(&made.json).unwrap();
        assert_eq!(document["difficulty"], "custom");
        assert_eq!((document["par"].clone(), made.summary.par), (json!(1), 1));
        assert_eq!(document["metrics"]["attempts"], 0);
        let canonical = fruit().canonical_level(&level).unwrap();
        assert_eq!(
            canonical,
            "{\"width\":6,\"height\":3,\"grid\":[\"######\",\"#a..a#\",\"######\"],\
             \"one_ways\":[],\"anteaters\":[]}"
        );
        let seed = content_seed("fruit", &canonical);
        assert_eq!(document["seed"], json!(seed));
        assert!(seed < 1 << 53);
        // The served document proves again as the same level, at the same address.
        let again = proven(&document).unwrap();
        let again: Value = serde_json::from_str(&again.json).unwrap();
        assert_eq!(
            (again["seed"].clone(), again["par"].clone()),
            (json!(seed), json!(1))
        );
        // Another game's hash of the same text is another address.
        assert_ne!(content_seed("skiddy", &canonical), seed);
    }

    #[test]
    fn an_unsolvable_hand_made_level_names_the_rule() {
        // Every tilt drives a fruit into the water.
        let level = json!({"game": "fruit", "width": 7, "height": 3,
            "grid": ["#######", "#~a~a~#", "#######"], "one_ways": [], "anteaters": []});
        match proven(&level) {
            Err(GameError::Rule(rule)) => assert_eq!(rule.rule, UNSOLVABLE),
            other => panic!("{other:?}"),
        }
        let broken = json!({"game": "fruit", "width": 6, "height": 3,
            "grid": ["######", "#a...#", "######"], "one_ways": [], "anteaters": []});
        assert!(matches!(proven(&broken), Err(GameError::Rule(_))));
    }

    #[test]
    fn custom_levels_are_never_generated() {
        for game in crate::registry::all() {
            let result = game.generate(Difficulty::Custom, 1, &Stop::never());
            assert!(
                matches!(result, Err(GenerateError::NotGenerated)),
                "{}",
                game.name()
            );
        }
    }
}
