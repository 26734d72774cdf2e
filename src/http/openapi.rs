//! The generated part of openapi.yaml's `components/schemas`: each game's schemas (derived
//! from its Rust types in the games crate) and the unions over the games that the routes
//! use (`Level` with a discriminator on `game`, `LevelInput`, `Moves`, `Outcome`, `Hint`,
//! `PlayResult`, `VerifyReport`, `Rule`). The test below fails when openapi.yaml differs;
//! `LEVELFORGE_UPDATE_OPENAPI=1 cargo test --lib openapi` rewrites its generated block.

use std::collections::BTreeMap;

use levelforge_games::contract::{REF_PREFIX, schema_prefix};
use levelforge_games::registry;
use serde_json::{Value, json};

/// Every generated schema, by name.
pub fn schemas() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for game in registry::all() {
        let schemas = game.schemas();
        let prefix = schema_prefix(game.name());
        let play = play_result(&schemas[&format!("{prefix}Outcome")]);
        out.insert(format!("{prefix}PlayResult"), play);
        for (name, schema) in schemas {
            if let Some(other) = out.get(&name) {
                assert_eq!(other, &schema, "two games define {name} differently");
            }
            out.insert(name, schema);
        }
    }
    let union = |suffix: &str| -> Vec<Value> {
        registry::all()
            .iter()
            .map(|g| json!({ "$ref": format!("{REF_PREFIX}{}{suffix}", schema_prefix(g.name())) }))
            .collect()
    };
    let mapping: serde_json::Map<String, Value> = registry::all()
        .iter()
        .map(|g| {
            let target = format!("{REF_PREFIX}{}Level", schema_prefix(g.name()));
            (g.name().to_string(), json!(target))
        })
        .collect();
    out.insert(
        "Level".into(),
        json!({
            "description": "A level document, byte for byte as stored; `game` says which game's shape it has.",
            "oneOf": union("Level"),
            "discriminator": { "propertyName": "game", "mapping": mapping },
        }),
    );
    out.insert(
        "LevelInput".into(),
        json!({
            "description": "A level in its game's shape (the game is `?game=`, else the body's `game`, else the default game).",
            "anyOf": union("LevelInput"),
        }),
    );
    out.insert(
        "Moves".into(),
        json!({
            "description": "The level's game's move format: a U/D/L/R string (fruit, skiddy, hopper), links (hashi) or placements (tetropica). Another game's format is 400.",
            "anyOf": union("Moves"),
        }),
    );
    out.insert(
        "Outcome".into(),
        json!({ "description": "A replay's outcome, in the level's game's shape.", "oneOf": union("Outcome") }),
    );
    out.insert(
        "Hint".into(),
        json!({ "description": "A hint, in the level's game's shape (the letter games' shapes coincide).", "anyOf": union("Hint") }),
    );
    out.insert(
        "PlayResult".into(),
        json!({ "description": "A stored play, in the level's game's shape.", "oneOf": union("PlayResult") }),
    );
    out.insert(
        "VerifyReport".into(),
        json!({ "description": "The solver's report, in the posted level's game's shape.", "anyOf": union("VerifyReport") }),
    );
    let names: Vec<&str> = registry::all().iter().map(|g| g.name()).collect();
    out.insert(
        "GameName".into(),
        json!({ "type": "string", "enum": names, "description": "A game this server has." }),
    );
    out.insert(
        "PlayRule".into(),
        json!({ "type": "string", "enum": crate::http::problem::SERVICE_RULES, "description": "A rule the service enforces for every game: of a play, or of a collection's entry (`level.unsolvable` is the games' shared rule for a hand-made level with no solution)." }),
    );
    let mut rules = union("Rule");
    rules.push(json!({ "$ref": format!("{REF_PREFIX}PlayRule") }));
    out.insert(
        "Rule".into(),
        json!({ "description": "A rule id: the games' lists and the service's play rules (one id may be in several).", "anyOf": rules }),
    );
    out
}

/// `POST .../plays`: the replay's outcome and what the server recorded.
fn play_result(outcome: &Value) -> Value {
    let mut play = outcome.clone();
    play["description"] = json!("A stored play: the replay's outcome and the play's record.");
    let properties = play["properties"]
        .as_object_mut()
        .expect("outcome properties");
    let record = json!({
        "id": { "type": "integer", "minimum": 1, "description": "The play's id." },
        "solved_claimed": { "type": "boolean", "description": "What the client claimed." },
        "verified": { "type": "boolean", "description": "The claim matches the replay." },
        "rated": { "type": "boolean", "description": "The player's first play of this level with a move (sent with a player token) - the player's rating moved." },
        "player_rating": { "$ref": format!("{REF_PREFIX}RatingChange"), "description": "Present when rated." },
        "level_rating": { "$ref": format!("{REF_PREFIX}RatingChange"), "description": "Present when the level's rating moved too - the play was rated and the player's rating in the game is established (docs/http.md)." },
    });
    for (name, schema) in record.as_object().expect("an object") {
        properties.insert(name.clone(), schema.clone());
    }
    let required = play["required"].as_array_mut().expect("outcome required");
    required.extend(["id", "solved_claimed", "verified", "rated"].map(|r| json!(r)));
    play
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEGIN: &str = "    # BEGIN generated schemas (src/http/openapi.rs)";
    const END: &str = "    # END generated schemas";

    fn openapi_path() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.yaml")
    }

    /// The generated schemas as the YAML lines of `components/schemas`.
    fn rendered() -> String {
        let yaml = yaml_serde::to_string(&schemas()).expect("schemas render");
        yaml.lines().map(|line| format!("    {line}\n")).collect()
    }

    /// The text between the markers, and the text around it.
    fn split(text: &str) -> (&str, &str, &str) {
        let (head, rest) = text
            .split_once(&format!("{BEGIN}\n"))
            .expect("BEGIN marker");
        let (block, tail) = rest.split_once(&format!("{END}\n")).expect("END marker");
        (head, block, tail)
    }

    #[test]
    fn openapi_yaml_has_the_generated_schemas() {
        if std::env::var_os("LEVELFORGE_UPDATE_OPENAPI").is_some() {
            let text = std::fs::read_to_string(openapi_path()).unwrap();
            let (head, _, tail) = split(&text);
            let new = format!("{head}{BEGIN}\n{}{END}\n{tail}", rendered());
            std::fs::write(openapi_path(), new).unwrap();
        }
        let text = std::fs::read_to_string(openapi_path()).unwrap();
        let generated = schemas();
        let document: Value = yaml_serde::from_str(&text).expect("openapi.yaml parses");
        for (name, schema) in &generated {
            assert_eq!(
                document["components"]["schemas"].get(name),
                Some(schema),
                "openapi.yaml's schema {name} is not the one the Rust types give: \
                 run LEVELFORGE_UPDATE_OPENAPI=1 cargo test --lib openapi"
            );
        }
        let (_, block, _) = split(&text);
        let in_block: BTreeMap<String, Value> = yaml_serde::from_str(block).unwrap();
        assert!(
            in_block.keys().eq(generated.keys()),
            "the generated block names other schemas than the Rust types give"
        );
    }

    /// Every `$ref` in openapi.yaml points at a schema it defines.
    #[test]
    fn every_reference_resolves() {
        let text = std::fs::read_to_string(openapi_path()).unwrap();
        let document: Value = yaml_serde::from_str(&text).unwrap();
        let mut refs = Vec::new();
        collect_refs(&document, &mut refs);
        for target in refs {
            let pointer = target.strip_prefix('#').expect("local reference");
            assert!(
                document.pointer(pointer).is_some(),
                "{target} does not resolve"
            );
        }
    }

    fn collect_refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    match value {
                        Value::String(target) if key == "$ref" => out.push(target.clone()),
                        _ => collect_refs(value, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
            _ => {}
        }
    }
}
