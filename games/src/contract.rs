//! The JSON Schemas of one game's documents, derived from its Rust types with schemars:
//! what the service serves (level, replay outcome, verify report) and what it parses
//! (level input, moves), plus the rule ids a 422 can name. The service puts them in
//! openapi.yaml, and a test there keeps the file equal to what this module derives.
//!
//! Names are the game's title-cased name and a suffix (`FruitLevel`, `HashiMoves`, ...);
//! the types they use are referenced as `#/components/schemas/<Name>`.

use std::collections::{BTreeMap, BTreeSet};

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::core::{Hint, Puzzle, Replay};
use crate::document::{LevelDocument, MetricsDocument};

/// Where every `$ref` points: the components of an OpenAPI document.
pub const REF_PREFIX: &str = "#/components/schemas/";

/// `fruit` → `Fruit`: the prefix of a game's schema names.
pub fn schema_prefix(game: &str) -> String {
    let mut chars = game.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn generator(serialize: bool) -> SchemaGenerator {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "/components/schemas".into();
        s.meta_schema = None;
    });
    let settings = if serialize {
        settings.for_serialize()
    } else {
        settings.for_deserialize()
    };
    settings.into_generator()
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("{REF_PREFIX}{name}") })
}

/// The properties of an object schema, for editing.
fn properties(schema: &mut Value) -> &mut Map<String, Value> {
    schema["properties"]
        .as_object_mut()
        .expect("an object schema with properties")
}

fn require(schema: &mut Value, names: &[&str]) {
    let required = schema
        .as_object_mut()
        .expect("an object schema")
        .entry("required")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .expect("required is a list");
    for name in names {
        if !required.iter().any(|r| r == name) {
            required.push(json!(name));
        }
    }
}

/// A response object whose every field the server writes: no other field may appear.
fn closed(mut schema: Value) -> Value {
    schema["additionalProperties"] = json!(false);
    schema
}

/// Every schema of game `P`, by name, with the named types they reference.
pub fn schemas<P: Puzzle>() -> BTreeMap<String, Value> {
    let prefix = schema_prefix(P::NAME);
    let name = |suffix: &str| format!("{prefix}{suffix}");
    let mut served = generator(true);
    let mut parsed = generator(false);
    let mut out = BTreeMap::from([
        (name("Level"), level::<P>(&prefix, &mut served)),
        (name("LevelMetrics"), level_metrics::<P>(&mut served)),
        (name("LevelInput"), level_input::<P>(&mut parsed)),
        (name("Moves"), moves::<P>(&mut parsed)),
        (name("Outcome"), outcome::<P>(&prefix, &mut served)),
        (name("Hint"), hint::<P>(&prefix, &mut served)),
        (
            name("VerifyReport"),
            verify_report::<P>(&prefix, &mut served),
        ),
        (name("VerifyMetrics"), verify_metrics::<P>(&mut served)),
        (name("Rule"), rule::<P>()),
    ]);
    let definitions = definitions(served, parsed);
    let reachable = referenced(&out, &definitions);
    out.extend(
        definitions
            .into_iter()
            .filter(|(def, _)| reachable.contains(def)),
    );
    for schema in out.values_mut() {
        plain_integers(schema);
    }
    out
}

/// The named types both generators met, which must agree where both met one.
fn definitions(mut served: SchemaGenerator, mut parsed: SchemaGenerator) -> Map<String, Value> {
    let mut definitions = served.take_definitions(true);
    for (def, schema) in parsed.take_definitions(true) {
        if let Some(other) = definitions.get(&def) {
            assert_eq!(
                other, &schema,
                "{def} differs between requests and responses"
            );
        }
        definitions.insert(def, schema);
    }
    definitions
}

/// A served level: the level document, with the game's name and solution format.
fn level<P: Puzzle>(prefix: &str, served: &mut SchemaGenerator) -> Value {
    let mut level: Value =
        LevelDocument::<P::Level, P::Solution, P::Metrics>::json_schema(served).into();
    level["description"] = json!(format!(
        "A {} level as the server stores and serves it.",
        P::TITLE
    ));
    let props = properties(&mut level);
    props["game"] =
        json!({ "type": "string", "const": P::NAME, "description": "The game's name." });
    let mut solution: Value = P::solution_schema(served).into();
    if solution.get("description").is_none() {
        solution["description"] = json!("One optimal solution, in the game's move format.");
    }
    props["solution"] = solution;
    props["metrics"] = reference(&format!("{prefix}LevelMetrics"));
    closed(level)
}

fn level_metrics<P: Puzzle>(served: &mut SchemaGenerator) -> Value {
    let mut metrics: Value = MetricsDocument::<P::Metrics>::json_schema(served).into();
    metrics["description"] = json!(format!(
        "A {} level's metrics: the pipeline's figures, then the game's own.",
        P::TITLE
    ));
    closed(metrics)
}

/// A level as `/verify` parses it: open, since a served level's extra fields are ignored.
fn level_input<P: Puzzle>(parsed: &mut SchemaGenerator) -> Value {
    let mut input: Value = P::Level::json_schema(parsed).into();
    input["description"] = json!(format!(
        "A {} level to verify. Other fields (a served level's `par`, `solution`, \
         `metrics`, ...) are ignored.",
        P::TITLE
    ));
    properties(&mut input).insert(
        "game".into(),
        json!({
            "type": "string",
            "description": "Picks the game when the request has no `?game=` (an unknown one is \
                            404); ignored otherwise.",
        }),
    );
    input
}

fn moves<P: Puzzle>(parsed: &mut SchemaGenerator) -> Value {
    let mut moves: Value = P::moves_schema(parsed).into();
    if moves.get("description").is_none() {
        moves["description"] = json!(format!(
            "{} moves, in the format of its levels' `solution`.",
            P::TITLE
        ));
    }
    moves
}

/// `check`'s answer: the replay, with the par, the medals and (on request) the position.
fn outcome<P: Puzzle>(prefix: &str, served: &mut SchemaGenerator) -> Value {
    let mut outcome: Value = Replay::<P::ReplayExtra>::json_schema(served).into();
    outcome["description"] = json!(format!("The replay of moves on a {} level.", P::TITLE));
    let props = properties(&mut outcome);
    props.insert(
        "par".into(),
        json!({
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": u32::MAX,
            "description": "The level's par.",
        }),
    );
    props.insert(
        "medals".into(),
        json!({
            "type": "array",
            "uniqueItems": true,
            "items": { "type": "string", "enum": P::MEDALS },
            "description": "Medals the replay earned (`par`: won within par moves).",
        }),
    );
    props.insert(
        "position".into(),
        json!({
            "anyOf": [reference(&format!("{prefix}LevelInput")), {"type": "null"}],
            "description": "With `?position=true` only: the position the moves reach as a \
                            level document `/verify` accepts; null when the level format \
                            cannot express it (won, lost, or a piece the grid has no symbol for).",
        }),
    );
    require(&mut outcome, &["par", "medals"]);
    closed(outcome)
}

/// A hint, whose next move is in the game's `Moves` format.
fn hint<P: Puzzle>(prefix: &str, served: &mut SchemaGenerator) -> Value {
    let mut hint: Value = Hint::<P::Moves>::json_schema(served).into();
    hint["description"] = json!(format!(
        "A hint for the position some moves reach on a {} level.",
        P::TITLE
    ));
    let props = properties(&mut hint);
    let next_description = props["next"]["description"].clone();
    props["next"] = json!({
        "anyOf": [reference(&format!("{prefix}Moves")), {"type": "null"}],
        "description": next_description,
    });
    require(&mut hint, &["distance", "next", "undo", "conflict"]);
    closed(hint)
}

/// The solver's figures on a posted level: the pipeline's four, then the game's own.
fn verify_metrics<P: Puzzle>(served: &mut SchemaGenerator) -> Value {
    let mut verify_metrics: Value = P::Metrics::json_schema(served).into();
    verify_metrics["description"] = json!(format!(
        "The solver's figures on a posted {} level; only `solve_ms` when it gave up.",
        P::TITLE
    ));
    let figures = [
        ("solve_ms", "Wall time of this analysis."),
        ("states", "States the solver expanded."),
        (
            "solution_count",
            "Optimal solutions, saturating at the cap.",
        ),
        ("solution_count_cap", "Where `solution_count` saturates."),
    ];
    for (field, description) in figures {
        properties(&mut verify_metrics).insert(
            field.into(),
            json!({
                "type": "integer",
                "minimum": 0,
                "maximum": u64::MAX,
                "description": description,
            }),
        );
    }
    // The game's own figures are absent when the solver gave up.
    verify_metrics["required"] = json!(["solve_ms"]);
    closed(verify_metrics)
}

fn rule<P: Puzzle>() -> Value {
    json!({
        "type": "string",
        "enum": P::RULES,
        "description": format!("The rule ids a 422 names for {}.", P::TITLE),
    })
}

/// `POST /verify`'s report, as [`crate::Game::verify`] writes it.
fn verify_report<P: Puzzle>(prefix: &str, served: &mut SchemaGenerator) -> Value {
    let solution: Value = P::solution_schema(served).into();
    closed(json!({
        "type": "object",
        "description": format!("The solver's report on a posted {} level.", P::TITLE),
        "required": ["valid", "solvable", "metrics", "gave_up"],
        "properties": {
            "valid": { "type": "boolean", "const": true, "description": "The level breaks no rule (else 422)." },
            "solvable": { "type": ["boolean", "null"], "description": "null when the solver gave up." },
            "par": { "type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX, "description": "null when unsolvable." },
            "solution": { "anyOf": [solution, { "type": "null" }], "description": "One optimal solution; null when unsolvable." },
            "metrics": reference(&format!("{prefix}VerifyMetrics")),
            "accepted_by": {
                "type": "array",
                "description": "The tiers whose acceptance window this level passes.",
                "items": reference("Difficulty"),
            },
            "gave_up": { "type": ["string", "null"], "description": "Why the solver stopped early; null when it finished." },
        },
    }))
}

/// The definitions reachable through `$ref` from the named schemas.
fn referenced(
    named: &BTreeMap<String, Value>,
    definitions: &Map<String, Value>,
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut queue: Vec<&Value> = named.values().collect();
    while let Some(schema) = queue.pop() {
        let mut refs = Vec::new();
        collect_refs(schema, &mut refs);
        for name in refs {
            if seen.insert(name.clone())
                && let Some(def) = definitions.get(&name)
            {
                queue.push(def);
            }
        }
    }
    seen
}

fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value.as_str()) {
                    ("$ref", Some(target)) => {
                        out.extend(target.strip_prefix(REF_PREFIX).map(str::to_string))
                    }
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// schemars marks Rust integer types with formats (`uint32`, `int64`, ...) that OpenAPI
/// does not define; the same facts as plain bounds every validator and generator reads.
fn plain_integers(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let bounds = match map.get("format").and_then(Value::as_str) {
                Some("uint32") => Some((json!(0), json!(u32::MAX))),
                Some("uint64" | "uint") => Some((json!(0), json!(u64::MAX))),
                Some("int64") => Some((json!(i64::MIN), json!(i64::MAX))),
                _ => None,
            };
            if let Some((min, max)) = bounds {
                map.remove("format");
                map.entry("minimum").or_insert(min);
                map.entry("maximum").or_insert(max);
            }
            map.values_mut().for_each(plain_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

    /// The rule ids quoted in a game's own source (tests aside), and the shared ones it
    /// reaches: every game checks its grid; the tilt and hop games parse move letters.
    fn rules_in_source(game: &str) -> BTreeSet<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(game);
        let mut source = String::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let is_code = path.extension().is_some_and(|e| e == "rs");
            if is_code && path.file_name().unwrap() != "tests.rs" {
                source += &std::fs::read_to_string(path).unwrap();
            }
        }
        let mut rules = BTreeSet::new();
        for quoted in source.split('"').skip(1).step_by(2) {
            let Some((scope, id)) = quoted.split_once('.') else {
                continue;
            };
            let is_id = !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if is_id && (scope == game || scope == "move") {
                rules.insert(quoted.to_string());
            }
        }
        for shared in ["grid.height", "grid.width", "grid.cell", "grid.size"] {
            rules.insert(shared.to_string());
        }
        if source.contains("parse_moves") {
            rules.insert("moves.letters".to_string());
        }
        rules
    }

    #[test]
    fn every_game_lists_the_rule_ids_its_code_can_name() {
        let template: &dyn crate::Game = &crate::game::Adapter::<crate::template::Template>::NEW;
        for game in registry::all().iter().copied().chain([template]) {
            let listed: BTreeSet<String> = game.schemas()
                [&format!("{}Rule", schema_prefix(game.name()))]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            assert_eq!(listed, rules_in_source(game.name()), "{}", game.name());
        }
    }

    #[test]
    fn schemas_name_every_field_closed_where_served() {
        for game in registry::all() {
            let schemas = game.schemas();
            let prefix = schema_prefix(game.name());
            for suffix in [
                "Level",
                "LevelMetrics",
                "Outcome",
                "VerifyReport",
                "VerifyMetrics",
            ] {
                let schema = &schemas[&format!("{prefix}{suffix}")];
                assert_eq!(
                    schema["additionalProperties"],
                    json!(false),
                    "{prefix}{suffix}"
                );
                for (field, property) in schema["properties"].as_object().unwrap() {
                    let described =
                        property.get("description").is_some() || property.get("$ref").is_some();
                    assert!(described, "{prefix}{suffix}.{field} has no description");
                }
            }
            let level = &schemas[&format!("{prefix}Level")];
            assert_eq!(level["properties"]["game"]["const"], json!(game.name()));
            let text = serde_json::to_string(&schemas).unwrap();
            assert!(!text.contains("\"format\""), "{text}");
        }
    }
}
