//! `GET /players/me/next` from outside: simulated players of three skills take the level
//! it serves, play it with the bots of `levelforge simulate` and report the play, over
//! HTTP, as a client would (docs/difficulty.md).

use std::collections::HashSet;

use levelforge_games::{LevelRng, SKILLS, Skill, registry};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Backend, Player, TestApp, TestDatabase};

/// The game the bots play: its bots are quick, and its tiers span the widest range of
/// measured ratings.
const GAME: &str = "tetropica";
const PLAYS: usize = 200;
/// The window the win rate is compared over: the ratings have settled by then.
const LAST: usize = 50;

/// What one bot met: per play, the expected score it was served, the level's rating, and
/// whether it won.
#[derive(Default)]
struct Journey {
    expected: Vec<f64>,
    ratings: Vec<f64>,
    won: Vec<bool>,
}

impl Journey {
    fn last_win_rate(&self) -> f64 {
        let last = &self.won[self.won.len() - LAST..];
        last.iter().filter(|&&w| w).count() as f64 / LAST as f64
    }

    fn last_mean_expected(&self) -> f64 {
        self.expected[self.expected.len() - LAST..]
            .iter()
            .sum::<f64>()
            / LAST as f64
    }

    fn last_mean_rating(&self) -> f64 {
        self.ratings[self.ratings.len() - LAST..]
            .iter()
            .sum::<f64>()
            / LAST as f64
    }
}

/// One play: `next`, the level from its URL, the bot's moves, the play report.
async fn play_next(app: &TestApp, player: &Player, skill: &Skill, n: u64) -> (Value, bool) {
    let next = app
        .get_as(&player.token, &format!("/players/me/next?game={GAME}"))
        .await;
    assert_eq!(next.status, StatusCode::OK, "next: {}", next.body);
    assert_eq!(next.header("cache-control"), "no-store");
    let next = next.json();
    let level = app.get_json(next["url"].as_str().unwrap()).await;
    let game = registry::find(GAME).unwrap();
    let mut rng = LevelRng::for_play([n, level["seed"].as_u64().unwrap(), 7, 11]);
    let played = game.bot_play(&level, skill, &mut rng).unwrap();
    let (difficulty, seed) = (
        next["difficulty"].as_str().unwrap(),
        next["seed"].as_u64().unwrap(),
    );
    let body = json!({ "solved": played.won, "moves": played.moves });
    let answer = app
        .post_play_as(&player.token, GAME, difficulty, seed, &body)
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "play: {}", answer.body);
    (next, answer.json()["status"] == "won")
}

async fn journey(app: &TestApp, skill: &Skill) -> Journey {
    let player = app.new_player().await;
    let mut journey = Journey::default();
    let mut seen = HashSet::new();
    for n in 0..PLAYS as u64 {
        let (next, won) = play_next(app, &player, skill, n).await;
        let key = (
            next["difficulty"].to_string(),
            next["seed"].as_u64().unwrap(),
        );
        assert!(
            seen.insert(key),
            "{} was served the same level twice: {next}",
            skill.name
        );
        journey
            .expected
            .push(next["expected_score"].as_f64().unwrap());
        journey.ratings.push(next["rating"].as_f64().unwrap());
        journey.won.push(won);
    }
    journey
}

/// One address plays for every bot here: no per-client limits.
const UNLIMITED: [&str; 4] = [
    "--rate-limit-plays-per-min",
    "0",
    "--rate-limit-cold-per-min",
    "0",
];

/// Weak, middling and strong bots, 200 plays each: each one's win rate over its last 50
/// plays is what `next` told it to expect, and the strong one is served levels rated far
/// above the weak one's.
async fn bots_get_levels_that_fit_them(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &UNLIMITED).await;
    let (weak, middling, strong) = (&SKILLS[0], &SKILLS[1], &SKILLS[3]);
    let mut served = Vec::new();
    for skill in [weak, middling, strong] {
        let journey = journey(&app, skill).await;
        let (win_rate, expected) = (journey.last_win_rate(), journey.last_mean_expected());
        eprintln!(
            "{backend:?} {}: last {LAST} plays won {win_rate:.2}, expected {expected:.2}, \
             levels rated {:.0}",
            skill.name,
            journey.last_mean_rating()
        );
        assert!(
            (win_rate - expected).abs() <= 0.10,
            "{}: won {win_rate:.2} of its last {LAST} plays, expected {expected:.2}",
            skill.name
        );
        served.push(journey.last_mean_rating());
    }
    assert!(
        served[2] - served[0] >= 600.0,
        "the strong bot's levels are rated {:.0}, the weak bot's {:.0}",
        served[2],
        served[0]
    );
    app.stop().await;
}

/// Two replicas over one PostgreSQL database, asked at once for the same player: never
/// the same level twice.
async fn two_replicas_never_serve_one_player_a_level_twice(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let (a, b) = (
        TestApp::on(&database, &UNLIMITED).await,
        TestApp::on(&database, &UNLIMITED).await,
    );
    let player = a.new_player().await;
    let path = format!("/players/me/next?game={GAME}");
    let mut seen = HashSet::new();
    for _ in 0..40 {
        let (first, second) = tokio::join!(
            a.get_as(&player.token, &path),
            b.get_as(&player.token, &path)
        );
        for answer in [first, second] {
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            let next = answer.json();
            let key = (
                next["difficulty"].to_string(),
                next["seed"].as_u64().unwrap(),
            );
            assert!(seen.insert(key), "served twice: {next}");
        }
    }
    a.stop().await;
    b.stop().await;
}

on_both_backends!(
    bots_get_levels_that_fit_them,
    two_replicas_never_serve_one_player_a_level_twice,
);

#[tokio::test]
async fn next_needs_a_player_token_and_a_known_offset() {
    let app = TestApp::spawn().await;
    let anonymous = app.anonymous_get("/players/me/next").await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert!(anonymous.is_problem());
    let player = app.new_player().await;
    let wrong = app
        .get_as(&player.token, "/players/me/next?difficulty=impossible")
        .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(wrong.is_problem());
    let harder = app
        .get_as(&player.token, "/players/me/next?difficulty=harder")
        .await;
    assert_eq!(harder.status, StatusCode::OK, "{}", harder.body);
    let body = harder.json();
    let expected = body["expected_score"].as_f64().unwrap();
    assert!(
        expected < 0.5,
        "a harder level is one the player is expected to lose: {body}"
    );
    app.stop().await;
}
