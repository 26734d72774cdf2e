//! The designer dashboard (`GET /`): its files, and the page itself in Debian's headless
//! Chromium, driven by tests/browser/dashboard.mjs (Playwright). The browser run needs
//! Chromium and the script's one npm package, which scripts/test.sh installs before it
//! turns on the `test-browser` feature; without that feature the test is listed as ignored.

use std::path::Path;

use serde_json::json;

use crate::helpers::{TestApp, client};

#[tokio::test]
async fn dashboard_files_are_self_contained_and_revalidate() {
    let server = TestApp::spawn().await;
    for (path, content_type) in [
        ("/", "text/html; charset=utf-8"),
        ("/dashboard/app.js", "text/javascript; charset=utf-8"),
        ("/dashboard/level.js", "text/javascript; charset=utf-8"),
        ("/dashboard/style.css", "text/css; charset=utf-8"),
    ] {
        let response = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], content_type, "{path}");
        assert!(
            headers["content-security-policy"]
                .to_str()
                .unwrap()
                .starts_with("default-src 'self'")
        );
        let body = response.text().await.unwrap();
        // Nothing from other hosts (the browser test also blocks any such request).
        for remote in ["src=\"http", "href=\"http", "url(http", "fetch(\"http"] {
            assert!(!body.contains(remote), "{path} refers to another host");
        }
        let again = client()
            .get(server.url(path))
            .header("if-none-match", &headers["etag"])
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
    let html = server.get("/").await.body;
    assert!(
        html.contains("src=\"/dashboard/app.js\"")
            && html.contains("src=\"/dashboard/level.js\"")
            && html.contains("href=\"/dashboard/style.css\"")
    );
    server.stop().await;
}

/// Stores hard skiddy seeds 1..=8 and gives each four players' first plays: the odd
/// seeds are solved, the even ones failed, so ratings, solve rates and charts have data.
async fn seed_levels_and_plays(server: &TestApp) {
    let pack = server
        .get_json("/levels/hard?game=skiddy&from=1&count=8")
        .await;
    for level in pack.as_array().unwrap() {
        let seed = level["seed"].as_u64().unwrap();
        let won = seed % 2 == 1;
        let moves = if won {
            level["solution"].clone()
        } else {
            json!("")
        };
        for player in 0..4 {
            // A test player by name (helpers: `post_play` sends that player's token).
            let play = json!({"solved": won, "moves": moves, "client": format!("p{player}")});
            let answer = server.post_play("skiddy", "hard", seed, &play).await;
            assert_eq!(answer.status, 201, "{}", answer.body);
        }
    }
}

/// Runs one script of tests/browser against the server; its screenshots go to `shots`.
async fn run_browser_script(server: &TestApp, script: &str, shots: &Path) -> String {
    let script_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    // The same default as common.mjs.
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        script_dir.join("node_modules/playwright-core").is_dir() && Path::new(&chromium).exists(),
        "the browser test needs Chromium at {chromium} and `npm ci --prefix tests/browser` \
         (scripts/test.sh sets both up)"
    );
    let run = tokio::process::Command::new("node")
        .arg(script_dir.join(script))
        .arg(server.url(""))
        .arg(shots)
        .output()
        .await
        .expect("node runs");
    let report = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{script} failed:\n{}\n{report}",
        String::from_utf8_lossy(&run.stderr)
    );
    report
}

fn assert_screenshots(shots: &Path, names: &[&str]) {
    for shot in names {
        let png = std::fs::read(shots.join(shot)).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{shot}");
    }
}

/// A server for a browser: one address plays, hints and verifies every game and tier, so
/// no per-client budgets.
async fn spawn_for_browser() -> TestApp {
    TestApp::spawn_with(&[
        "--gen-queue-wait-ms",
        "60000",
        "--rate-limit-plays-per-min",
        "0",
        "--rate-limit-verify-per-min",
        "0",
        "--rate-limit-hints-per-min",
        "0",
    ])
    .await
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-browser"),
    ignore = "needs Chromium and Node: scripts/test.sh sets them up"
)]
async fn dashboard_renders_and_opens_a_level_in_headless_chromium() {
    let server = spawn_for_browser().await;
    seed_levels_and_plays(&server).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard");
    println!(
        "{}",
        run_browser_script(&server, "dashboard.mjs", &shots).await
    );
    assert_screenshots(&shots, &["dashboard.png", "dashboard-level.png"]);
    server.stop().await;
}

/// Every game played to a win by its hints, and fruit and skiddy edited into unsolvable
/// levels and back (tests/browser/play.mjs says exactly what it checks).
#[tokio::test]
#[cfg_attr(
    not(feature = "test-browser"),
    ignore = "needs Chromium and Node: scripts/test.sh sets them up"
)]
async fn dashboard_plays_and_edits_every_game_in_headless_chromium() {
    let server = spawn_for_browser().await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-play");
    println!("{}", run_browser_script(&server, "play.mjs", &shots).await);
    assert_screenshots(
        &shots,
        &[
            "dashboard-play.png",
            "dashboard-won.png",
            "dashboard-edit.png",
            "dashboard-edit-unsolvable.png",
        ],
    );
    server.stop().await;
}
