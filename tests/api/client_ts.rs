//! The contract from a client's side. A TypeScript client generated from openapi.yaml by
//! openapi-typescript (pinned in tests/client-ts/package-lock.json), compiled with
//! `tsc --strict` and run against the real server (a player's token flow, and the test's
//! designer key on the designer routes); and every game's served documents, tier by tier,
//! validated against openapi.yaml's schemas.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::helpers::TestApp;

const GAMES: [&str; 5] = ["fruit", "skiddy", "hashi", "tetropica", "hopper"];
const TIERS: [&str; 4] = ["easy", "medium", "hard", "expert"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn openapi() -> Value {
    let text = std::fs::read_to_string(repo().join("openapi.yaml")).unwrap();
    yaml_serde::from_str(&text).expect("openapi.yaml parses")
}

/// A validator for the named schema of openapi.yaml (its references resolve inside it).
pub(crate) fn validator(document: &Value, name: &str) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    });
    jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(crate) fn assert_valid(validator: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{value}");
}

#[tokio::test]
async fn served_documents_validate_against_openapi_schemas() {
    let document = openapi();
    let (level, outcome, play, verify, problem) = (
        validator(&document, "Level"),
        validator(&document, "Outcome"),
        validator(&document, "PlayResult"),
        validator(&document, "VerifyReport"),
        validator(&document, "Problem"),
    );
    let app = TestApp::spawn_with(&[
        "--gen-queue-wait-ms",
        "60000",
        // One address plays and verifies every game and tier: no per-client budgets.
        "--rate-limit-plays-per-min",
        "0",
        "--rate-limit-verify-per-min",
        "0",
    ])
    .await;
    for game in GAMES {
        for (seed, tier) in TIERS.into_iter().enumerate() {
            let seed = seed as u64 + 1;
            let served = app.get_level(game, tier, seed).await;
            let what = format!("{game} {tier}");
            assert_valid(&level, &served, &what);
            let moves = json!({ "moves": served["solution"] });
            let check_path = format!("/levels/{tier}/{seed}/check?game={game}");
            let checked = app.post(&check_path, &moves).await.json();
            assert_valid(&outcome, &checked, &what);
            assert_eq!(checked["status"], "won", "{what}");
            let report = json!({ "solved": true, "moves": served["solution"], "client": "schema" });
            let played = app.post_play(game, tier, seed, &report).await.json();
            assert_valid(&play, &played, &what);
            let verified = app
                .post(&format!("/verify?game={game}"), &served)
                .await
                .json();
            assert_valid(&verify, &verified, &what);
        }
        // A served level with a field the schema does not name fails: responses are closed.
        let mut extra = app.get_level(game, "easy", 1).await;
        extra["undocumented"] = json!(1);
        assert!(
            !level.is_valid(&extra),
            "{game}: an extra field must not validate"
        );
        extra.as_object_mut().unwrap().remove("undocumented");
        extra["metrics"]["undocumented"] = json!(1);
        assert!(
            !level.is_valid(&extra),
            "{game}: an extra metric must not validate"
        );
    }
    let broken = app
        .post("/levels/easy/1/check?game=fruit", &json!({ "moves": "UX" }))
        .await;
    assert_eq!(broken.status, 422);
    assert_valid(&problem, &broken.json(), "a 422");
    assert_eq!(broken.json()["rule"], "moves.letters");
    credentials_validate_against_openapi_schemas(&app, &document, &problem).await;
    app.stop().await;
}

/// The answers of the token flow and the sign-in, against their schemas: a new player, the
/// ratings of the player who played above (`client: "schema"`), who is signed in, and the
/// 401 that names the scheme.
async fn credentials_validate_against_openapi_schemas(
    app: &TestApp,
    document: &Value,
    problem: &jsonschema::Validator,
) {
    let made = reqwest::Client::new()
        .post(app.url("/players"))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let made: Value = made.json().await.unwrap();
    assert_valid(&validator(document, "NewPlayer"), &made, "POST /players");
    let token = app.named_player("schema").await;
    let me = app.get_as(&token, "/players/me").await;
    assert_eq!(me.status, 200, "{}", me.body);
    let me = me.json();
    assert_valid(
        &validator(document, "PlayerProfile"),
        &me,
        "GET /players/me",
    );
    assert_eq!(
        me["ratings"].as_object().unwrap().len(),
        GAMES.len(),
        "{me}"
    );
    let session = app.designer_get("/session").await;
    assert_eq!(session.status, 200, "{}", session.body);
    assert_valid(
        &validator(document, "SessionInfo"),
        &session.json(),
        "GET /session",
    );
    for (refused, what) in [
        (app.anonymous_get("/stats").await, "no key"),
        (app.get_as("lfk_nope_nope", "/stats").await, "a made-up key"),
    ] {
        assert_eq!(refused.status, 401, "{what}: {}", refused.body);
        assert_valid(problem, &refused.json(), what);
        assert!(
            refused
                .header("www-authenticate")
                .starts_with("Bearer realm=\"levelforge\""),
            "{what}: {}",
            refused.header("www-authenticate")
        );
    }
}

/// Every operation states its access (`security`) with schemes openapi.yaml defines, and
/// the server agrees: an operation that needs a credential documents 401 and 403 and
/// answers 401 without one; a public or optional one never answers 401 to a request
/// without one.
#[tokio::test]
async fn every_operation_states_its_access_and_the_server_agrees() {
    let document = openapi();
    let schemes = document["components"]["securitySchemes"]
        .as_object()
        .expect("securitySchemes");
    let app = TestApp::spawn_with(&[]).await;
    let http = reqwest::Client::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let what = format!("{} {path}", method.to_uppercase());
            let security = operation["security"]
                .as_array()
                .unwrap_or_else(|| panic!("{what} states no `security`"));
            let requirements: Vec<&serde_json::Map<String, Value>> = security
                .iter()
                .map(|r| r.as_object().expect("a security requirement"))
                .collect();
            for name in requirements.iter().flat_map(|r| r.keys()) {
                assert!(schemes.contains_key(name), "{what}: no scheme {name}");
            }
            let optional = requirements.iter().any(|r| r.is_empty());
            let required = !requirements.is_empty() && !optional;
            if required || requirements.len() > 1 {
                for status in ["401", "403"] {
                    assert!(
                        operation["responses"].get(status).is_some(),
                        "{what}: needs a credential but documents no {status}"
                    );
                }
            }
            let url = app.url(&path.replace("{difficulty}", "easy").replace("{seed}", "1"));
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let request = http.request(method.clone(), url);
            let request = if method == reqwest::Method::POST {
                request.json(&json!({}))
            } else {
                request
            };
            let status = request.send().await.unwrap().status();
            if required {
                assert_eq!(status, 401, "{what} without a credential");
            } else {
                assert_ne!(status, 401, "{what} is public (or optional) but refused");
            }
        }
    }
    app.stop().await;
}

/// The client's sources and installed packages.
fn client_dir() -> PathBuf {
    repo().join("tests/client-ts")
}

/// A build folder outside the sources: the program, its tsconfig, the generated types,
/// the compiled JavaScript, and a link to the installed packages.
fn build_dir() -> PathBuf {
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-ts");
    let _ = std::fs::remove_dir_all(&build);
    std::fs::create_dir_all(build.join("generated")).unwrap();
    for file in ["client.ts", "tsconfig.json"] {
        std::fs::copy(client_dir().join(file), build.join(file)).unwrap();
    }
    std::os::unix::fs::symlink(
        client_dir().join("node_modules"),
        build.join("node_modules"),
    )
    .unwrap();
    build
}

fn node(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new("node")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("node runs")
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Generates the client types with openapi-typescript: no warnings, every operation.
fn generate_types(build: &Path) -> String {
    let out = build.join("generated/api.d.ts");
    let spec = repo().join("openapi.yaml");
    let run = node(
        build,
        &[
            "node_modules/openapi-typescript/bin/cli.js",
            spec.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
    );
    let printed = format!("{}{}", text(&run.stdout), text(&run.stderr));
    assert!(
        run.status.success(),
        "openapi-typescript failed:\n{printed}"
    );
    let lowered = printed.to_lowercase();
    assert!(
        !lowered.contains("warn") && !printed.contains('⚠'),
        "openapi-typescript printed warnings:\n{printed}"
    );
    let types = std::fs::read_to_string(&out).unwrap();
    for operation in operation_ids(&openapi()) {
        assert!(
            types.contains(&format!("    {operation}: {{")),
            "operation {operation} is missing from the generated client"
        );
    }
    printed
}

fn operation_ids(document: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str();
            let id = id.unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            ids.push(id.to_string());
        }
    }
    ids
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-client-ts"),
    ignore = "needs Node and `npm ci --prefix tests/client-ts`: scripts/test.sh sets them up"
)]
async fn generated_typescript_client_plays_every_game() {
    let build = build_dir();
    let printed = generate_types(&build);
    println!("{printed}");
    let compiled = node(
        &build,
        &["node_modules/typescript/bin/tsc", "-p", "tsconfig.json"],
    );
    assert!(
        compiled.status.success(),
        "tsc --strict rejected the client:\n{}{}",
        text(&compiled.stdout),
        text(&compiled.stderr)
    );
    let app = TestApp::spawn_with(&[
        "--gen-queue-wait-ms",
        "60000",
        // One address plays and verifies every game and tier: no per-client budgets.
        "--rate-limit-plays-per-min",
        "0",
        "--rate-limit-verify-per-min",
        "0",
    ])
    .await;
    let base = app.url("");
    // The client makes its player itself (`POST /players`); the designer routes it calls
    // take the test's designer key, by environment so that it is on no command line.
    let run = tokio::process::Command::new("node")
        .arg(build.join("dist/client.js"))
        .arg(&base)
        .env("LEVELFORGE_DESIGNER_KEY", &app.designer_key)
        .output()
        .await
        .expect("node runs");
    let report = text(&run.stdout);
    assert!(
        run.status.success(),
        "the TypeScript client failed:\n{}\n{report}",
        text(&run.stderr)
    );
    println!("{report}");
    assert!(report.contains("checks passed"), "{report}");
    app.stop().await;
}
