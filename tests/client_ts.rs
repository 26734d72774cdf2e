//! The contract from a client's side. A TypeScript client generated from openapi.yaml by
//! openapi-typescript (pinned in tests/client-ts/package-lock.json), compiled with
//! `tsc --strict` and run against the real server; and every game's served documents,
//! tier by tier, validated against openapi.yaml's schemas.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{Server, client, sqlite_url};
use serde_json::{Value, json};

const GAMES: [&str; 5] = ["fruit", "skiddy", "hashi", "tetropica", "hopper"];
const TIERS: [&str; 4] = ["easy", "medium", "hard", "expert"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn openapi() -> Value {
    let text = std::fs::read_to_string(repo().join("openapi.yaml")).unwrap();
    yaml_serde::from_str(&text).expect("openapi.yaml parses")
}

/// A validator for the named schema of openapi.yaml (its references resolve inside it).
fn validator(document: &Value, name: &str) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    });
    jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(validator: &jsonschema::Validator, value: &Value, what: &str) {
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
    let server = Server::start(&sqlite_url(), &["--gen-queue-wait-ms", "60000"]).await;
    let http = client();
    for game in GAMES {
        for (seed, tier) in TIERS.into_iter().enumerate() {
            let url = server.url(&format!("/levels/{tier}/{}?game={game}", seed + 1));
            let served = http.get(&url).json_body().await;
            let what = format!("{game} {tier}");
            assert_valid(&level, &served, &what);
            let moves = json!({ "moves": served["solution"] });
            let check_url = url.replace("?game", "/check?game");
            let checked = http.post(&check_url).json(&moves).json_body().await;
            assert_valid(&outcome, &checked, &what);
            assert_eq!(checked["status"], "won", "{what}");
            let report = json!({ "solved": true, "moves": served["solution"], "client": "schema" });
            let plays_url = url.replace("?game", "/plays?game");
            let played = http.post(&plays_url).json(&report).json_body().await;
            assert_valid(&play, &played, &what);
            let verify_url = server.url(&format!("/verify?game={game}"));
            let verified = http.post(verify_url).json(&served).json_body().await;
            assert_valid(&verify, &verified, &what);
        }
        // A served level with a field the schema does not name fails: responses are closed.
        let easy_url = server.url(&format!("/levels/easy/1?game={game}"));
        let mut extra = http.get(easy_url).json_body().await;
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
    let broken = http
        .post(server.url("/levels/easy/1/check?game=fruit"))
        .json(&json!({ "moves": "UX" }))
        .json_body()
        .await;
    assert_valid(&problem, &broken, "a 422");
    assert_eq!(broken["rule"], "moves.letters");
    server.stop().await;
}

trait JsonBody {
    async fn json_body(self) -> Value;
}

impl JsonBody for reqwest::RequestBuilder {
    /// Sends the request and parses the body, whatever the status.
    async fn json_body(self) -> Value {
        self.send().await.unwrap().json().await.unwrap()
    }
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
    not(client_ts),
    ignore = "needs node and `npm ci --prefix tests/client-ts` (then rebuild)"
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
    let server = Server::start(&sqlite_url(), &["--gen-queue-wait-ms", "60000"]).await;
    let base = server.url("");
    let run = tokio::process::Command::new("node")
        .arg(build.join("dist/client.js"))
        .arg(&base)
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
    server.stop().await;
}
