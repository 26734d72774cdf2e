//! What adding a game needs besides its code (the checklist in games/src/registry.rs):
//! every registered game has its README, its golden catalog, its name in openapi.yaml and
//! its row of simulated figures in docs/difficulty.md.

use std::path::Path;

use levelforge_games::registry;
use yaml_serde::Value;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_game_has_a_readme_and_a_golden_catalog() {
    for name in registry::names() {
        for file in [
            format!("games/src/{name}/README.md"),
            format!("games/tests/golden/{name}.jsonl"),
        ] {
            let path = repository().join(&file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|_| panic!("game `{name}` has no {file}"));
            assert!(!text.trim().is_empty(), "{file} is empty");
        }
    }
}

/// The simulated players' figures (docs/difficulty.md) have a row for every game.
#[test]
fn every_game_has_its_simulated_figures() {
    let text = std::fs::read_to_string(repository().join("docs/difficulty.md")).unwrap();
    for name in registry::names() {
        assert!(
            text.lines()
                .any(|line| line.starts_with(&format!("| `{name}` |"))),
            "docs/difficulty.md has no row `| `{name}` | …` of `levelforge simulate --game {name}`"
        );
    }
}

/// The `enum` of every `game` parameter in the document (through a `$ref` to its schema).
fn game_enums(document: &Value, node: &Value, out: &mut Vec<Vec<String>>) {
    match node {
        Value::Mapping(map) => {
            let is_game_parameter =
                map.get("name").and_then(Value::as_str) == Some("game") && map.get("in").is_some();
            if is_game_parameter {
                let mut schema = &map["schema"];
                if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
                    let name = target.trim_start_matches("#/components/schemas/");
                    schema = &document["components"]["schemas"][name];
                }
                let names = schema["enum"]
                    .as_sequence()
                    .expect("a game parameter lists the games in its schema's enum")
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect();
                out.push(names);
            }
            map.values().for_each(|v| game_enums(document, v, out));
        }
        Value::Sequence(items) => items.iter().for_each(|v| game_enums(document, v, out)),
        _ => {}
    }
}

#[test]
fn openapi_lists_exactly_the_registered_games() {
    let text = std::fs::read_to_string(repository().join("openapi.yaml")).unwrap();
    let document: Value = yaml_serde::from_str(&text).unwrap();
    let mut enums = Vec::new();
    game_enums(&document, &document, &mut enums);
    assert!(enums.len() >= 2, "the shared `game` parameter and /stats'");
    for names in enums {
        assert_eq!(
            names,
            registry::names(),
            "openapi.yaml's game enum, in registry order"
        );
    }
}
