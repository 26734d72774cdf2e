//! Issue #19 from a player's side: hints over HTTP, previews of a position, a position
//! as a level document, and the editor's preview of a posted document.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::client_ts::{assert_valid, openapi, validator};
use crate::helpers::TestApp;

const GAMES: [&str; 5] = ["fruit", "skiddy", "hashi", "tetropica", "hopper"];

/// Every byte but letters and digits as `%XX`: enough for JSON in a query string.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn append(moves: &Value, next: &Value) -> Value {
    match (moves, next) {
        (Value::String(a), Value::String(b)) => json!(format!("{a}{b}")),
        (Value::Array(a), Value::Array(b)) => Value::Array(a.iter().chain(b).cloned().collect()),
        _ => panic!("`next` {next} is not in the format of {moves}"),
    }
}

fn no_moves(level: &Value) -> Value {
    if level["solution"].is_string() {
        json!("")
    } else {
        json!([])
    }
}

async fn hint(app: &TestApp, game: &str, difficulty: &str, seed: u64, moves: &Value) -> Value {
    let path = format!("/levels/{difficulty}/{seed}/hint?game={game}");
    let answer = app.post(&path, &json!({ "moves": moves })).await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "{game} {moves}: {}",
        answer.body
    );
    answer.json()
}

/// `check?position=true` at `moves`: when the position is a level, `/verify` accepts it
/// and its par is `distance`.
async fn position_verifies(app: &TestApp, game: &str, seed: u64, moves: &Value, distance: u64) {
    let path = format!("/levels/easy/{seed}/check?game={game}&position=true");
    let check = app.post(&path, &json!({ "moves": moves })).await.json();
    assert_valid(&validator(&openapi(), "Outcome"), &check, game);
    let position = &check["position"];
    assert!(check.get("position").is_some(), "{game}: {check}");
    if position.is_null() {
        return;
    }
    let report = app.post("/verify", position).await;
    assert_eq!(report.status, StatusCode::OK, "{game}: {}", report.body);
    assert_eq!(
        report.json()["par"].as_u64(),
        Some(distance),
        "{game} {moves}"
    );
}

#[tokio::test]
async fn following_hints_wins_every_game_in_par() {
    // Faster than any player, and each step verifies the position too: no per-client
    // budgets here.
    let app = TestApp::spawn_with(&[
        "--rate-limit-verify-per-min",
        "0",
        "--rate-limit-hints-per-min",
        "0",
    ])
    .await;
    let hint_schema = validator(&openapi(), "Hint");
    for game in GAMES {
        for seed in [1, 2] {
            let level = app.get_level(game, "easy", seed).await;
            let par = level["par"].as_u64().unwrap();
            let mut moves = no_moves(&level);
            for step in 0..par {
                let here = hint(&app, game, "easy", seed, &moves).await;
                assert_valid(&hint_schema, &here, game);
                assert_eq!(here["status"], "unfinished", "{game}: {here}");
                assert_eq!(
                    here["distance"].as_u64(),
                    Some(par - step),
                    "{game}: {here}"
                );
                assert_eq!(here["moves_used"].as_u64(), Some(step));
                position_verifies(&app, game, seed, &moves, par - step).await;
                moves = append(&moves, &here["next"]);
            }
            let end = hint(&app, game, "easy", seed, &moves).await;
            assert_valid(&hint_schema, &end, game);
            assert_eq!(end["status"], "won", "{game}: {end}");
            assert_eq!((&end["distance"], &end["next"]), (&json!(0), &Value::Null));
            let check = app.post_check(game, "easy", seed, &moves).await.json();
            assert_eq!(check["status"], "won");
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn a_wrong_piece_is_named_and_taken_back() {
    let app = TestApp::spawn().await;
    // The golden easy tetropica level of seed 1 (grid `##ooo Eoooo ooo## o#o#o ooooS`,
    // hand IZ): an I along row 1 from E leaves no Z that can reach S.
    let wrong = json!([{"piece": "I", "cells": [[1, 1], [2, 1], [3, 1], [4, 1]]}]);
    let off = hint(&app, "tetropica", "easy", 1, &wrong).await;
    assert_eq!(off["distance"], Value::Null);
    assert_eq!((&off["conflict"], &off["undo"]), (&json!(0), &json!(1)));
    app.stop().await;
}

#[tokio::test]
async fn hints_refuse_moves_that_break_a_rule() {
    let app = TestApp::spawn().await;
    let cases = [
        ("fruit", json!("UX"), "moves.letters"),
        ("hashi", json!([[[0, 0], [1, 0]]]), "hashi.link_length"),
        (
            "tetropica",
            json!([{"piece": "Q", "cells": []}]),
            "move.piece",
        ),
    ];
    for (game, moves, rule) in cases {
        let path = format!("/levels/easy/1/hint?game={game}");
        let answer = app.post(&path, &json!({ "moves": moves })).await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            answer.body
        );
        assert!(answer.is_problem());
        assert_eq!(answer.json()["rule"], rule, "{game}");
    }
    let missing = app.post("/levels/easy/1/hint?game=fruit", &json!({})).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert!(missing.is_problem());
    app.stop().await;
}

#[tokio::test]
async fn hints_have_a_per_client_budget_of_their_own() {
    let app = TestApp::spawn_with(&[
        "--rate-limit-hints-per-min",
        "1",
        "--rate-limit-hints-burst",
        "2",
    ])
    .await;
    let body = json!({ "moves": "" });
    for _ in 0..2 {
        let answer = app.post("/levels/easy/1/hint?game=fruit", &body).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
    let over = app.post("/levels/easy/1/hint?game=fruit", &body).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(over.header("retry-after").parse::<u32>().unwrap() >= 1);
    // Verifications keep their own budget.
    let level = app.get_level("fruit", "easy", 1).await;
    assert_eq!(app.post("/verify", &level).await.status, StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn a_hint_over_the_state_budget_is_503_with_retry_after() {
    let app = TestApp::spawn_with(&["--verify-max-states", "1"]).await;
    let level = app.get_level("fruit", "hard", 1).await;
    let answer = app
        .post(
            "/levels/hard/1/hint?game=fruit",
            &json!({ "moves": no_moves(&level) }),
        )
        .await;
    assert_eq!(
        answer.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        answer.body
    );
    assert!(answer.is_problem());
    assert!(answer.header("retry-after").parse::<u32>().unwrap() >= 1);
    app.stop().await;
}

#[tokio::test]
async fn a_preview_with_moves_draws_the_position() {
    let app = TestApp::spawn().await;
    for game in GAMES {
        let level = app.get_level(game, "easy", 1).await;
        let first = append(
            &no_moves(&level),
            &hint(&app, game, "easy", 1, &no_moves(&level)).await["next"],
        );
        let moves = match &first {
            Value::String(letters) => letters.clone(),
            list => encode(&list.to_string()),
        };
        let start = app
            .get(&format!("/levels/easy/1/preview.svg?game={game}"))
            .await;
        let after = app
            .get(&format!(
                "/levels/easy/1/preview.svg?game={game}&moves={moves}"
            ))
            .await;
        assert_eq!(after.status, StatusCode::OK, "{game}: {}", after.body);
        assert_eq!(after.header("content-type"), "image/svg+xml");
        assert!(after.body.starts_with("<svg"), "{game}");
        assert_ne!(
            start.body, after.body,
            "{game}: the picture changes after a move"
        );
    }
    let bad = app
        .get("/levels/easy/1/preview.svg?game=fruit&moves=UX")
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

#[tokio::test]
async fn a_posted_document_is_drawn_for_the_editor() {
    let app = TestApp::spawn().await;
    for game in GAMES {
        let level = app.get_level(game, "easy", 1).await;
        let plain = app.post(&format!("/preview.svg?game={game}"), &level).await;
        assert_eq!(plain.status, StatusCode::OK, "{game}: {}", plain.body);
        assert_eq!(plain.header("content-type"), "image/svg+xml");
        let served = app
            .get(&format!("/levels/easy/1/preview.svg?game={game}"))
            .await;
        assert_eq!(
            plain.body, served.body,
            "{game}: the same drawing as the served one"
        );
        let solved = app.post("/preview.svg?solution=true", &level).await;
        assert_ne!(plain.body, solved.body, "{game}: the solution is drawn");
    }
    let broken = app
        .post(
            "/preview.svg?game=fruit",
            &json!({"width": 3, "height": 3, "grid": ["###"]}),
        )
        .await;
    assert_eq!(
        broken.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        broken.body
    );
    app.stop().await;
}
