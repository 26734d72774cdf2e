//! The designer dashboard (`GET /`): its files, and the page itself in Debian's headless
//! Chromium, driven by the scripts of tests/browser (Playwright), signed in through its
//! sign-in screen with the spawned app's designer key; and CORS as a page on another
//! origin meets it (tests/browser/cors.mjs). The browser runs need Chromium and the
//! scripts' one npm package, which scripts/test.sh installs before it turns on the
//! `test-browser` feature; without that feature those tests are listed as ignored.

use std::path::Path;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

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
        assert_eq!(
            headers["content-security-policy"],
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
             frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            "{path}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        let body = response.text().await.unwrap();
        // Nothing from other hosts (the browser test also blocks any such request).
        for remote in ["src=\"http", "href=\"http", "url(http", "fetch(\"http"] {
            assert!(!body.contains(remote), "{path} refers to another host");
        }
        assert_nothing_inline(path, &body);
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

/// The policy allows no inline script or style, so none may be written, in the HTML or in
/// markup the scripts build: no `<script>` without `src`, no `on...=` handler attributes,
/// no `style` attributes, no `javascript:` URLs, no HTML parsed from strings. (The browser
/// tests fail on any "Refused to ..." the page provokes; this catches code they miss.)
fn assert_nothing_inline(path: &str, body: &str) {
    for banned in [
        "style=",
        "javascript:",
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "setAttribute(\"style\"",
        "eval(",
        "new Function",
    ] {
        assert!(!body.contains(banned), "{path} has {banned}");
    }
    for (at, _) in body.match_indices("<script") {
        let tag = &body[at..at + body[at..].find('>').unwrap()];
        assert!(tag.contains(" src="), "{path}: an inline script: {tag}");
    }
    // An event handler attribute: ` on` and letters, then `=`, inside a tag.
    for (at, _) in body.match_indices(" on") {
        let name: String = body[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let inside_tag = body[..at].rfind('<') > body[..at].rfind('>');
        assert!(
            !(inside_tag && name.len() > 2 && body[at + 1 + name.len()..].starts_with('=')),
            "{path}: an inline handler {name}="
        );
    }
}

/// Stores hard skiddy seeds 1..=8 and gives each four established players' first plays:
/// the odd seeds are solved, the even ones failed (after one move), so ratings, solve
/// rates and charts have data.
async fn seed_levels_and_plays(server: &TestApp) {
    let pack = server
        .get_json("/levels/hard?game=skiddy&from=1&count=8")
        .await;
    let mut players = Vec::new();
    for _ in 0..4 {
        let player = server.new_player().await;
        server.establish(&player.token, "skiddy").await;
        players.push(player);
    }
    for level in pack.as_array().unwrap() {
        let seed = level["seed"].as_u64().unwrap();
        let won = seed % 2 == 1;
        let solution = level["solution"].as_str().unwrap();
        let moves = if won { solution } else { &solution[..1] };
        for player in &players {
            let play = json!({"solved": won, "moves": moves});
            let answer = server
                .post_play_as(&player.token, "skiddy", "hard", seed, &play)
                .await;
            assert_eq!(answer.status, 201, "{}", answer.body);
        }
    }
}

/// Runs one script of tests/browser against the server, with `extra` arguments after the
/// screenshot directory; its screenshots go to `shots`. The designer key goes by the
/// environment: a command line is readable by every user of the machine.
async fn run_browser_script(
    server: &TestApp,
    script: &str,
    shots: &Path,
    extra: &[&str],
) -> String {
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
        .args(extra)
        .env("LEVELFORGE_KEY", &server.designer_key)
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

/// A server for a browser, with `flags` besides: one address plays, hints and verifies
/// every game and tier, so no per-client budgets.
async fn spawn_for_browser(flags: &[&str]) -> TestApp {
    let mut all = vec![
        "--gen-queue-wait-ms",
        "60000",
        "--rate-limit-plays-per-min",
        "0",
        "--rate-limit-verify-per-min",
        "0",
        "--rate-limit-hints-per-min",
        "0",
    ];
    all.extend_from_slice(flags);
    TestApp::spawn_with(&all).await
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-browser"),
    ignore = "needs Chromium and Node: scripts/test.sh sets them up"
)]
async fn dashboard_signs_in_renders_and_opens_a_level_in_headless_chromium() {
    let server = spawn_for_browser(&[]).await;
    seed_levels_and_plays(&server).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard");
    println!(
        "{}",
        run_browser_script(&server, "dashboard.mjs", &shots, &[]).await
    );
    assert_screenshots(
        &shots,
        &[
            "dashboard-signin.png",
            "dashboard.png",
            "dashboard-level.png",
        ],
    );
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
    let server = spawn_for_browser(&[]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-play");
    println!(
        "{}",
        run_browser_script(&server, "play.mjs", &shots, &[]).await
    );
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

/// A collection made in the dashboard from an edited level and two stored ones, reordered,
/// sorted, published, read back and played in order (tests/browser/collection.mjs says
/// exactly what it checks).
#[tokio::test]
#[cfg_attr(
    not(feature = "test-browser"),
    ignore = "needs Chromium and Node: scripts/test.sh sets them up"
)]
async fn dashboard_publishes_a_collection_in_headless_chromium() {
    let server = spawn_for_browser(&[]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-collection");
    println!(
        "{}",
        run_browser_script(&server, "collection.mjs", &shots, &[]).await
    );
    assert_screenshots(
        &shots,
        &[
            "dashboard-collection.png",
            "dashboard-collection-invalid.png",
        ],
    );
    server.stop().await;
}

/// Serves `page` to every request on `listener`, as a game built on levelforge is served
/// from an origin of its own. HTTP/1.1 with one answer per connection is all Chromium needs.
async fn serve_page(listener: TcpListener, page: &'static str) {
    while let Ok((mut stream, _)) = listener.accept().await {
        tokio::spawn(async move {
            // The request head, up to its blank line; what was asked does not matter.
            let mut head = Vec::new();
            let mut buffer = [0; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => head.extend_from_slice(&buffer[..n]),
                }
            }
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
                 content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
        });
    }
}

/// A game on another origin: from an origin in CORS_ALLOWED_ORIGINS a page makes a
/// player, plays an easy fruit level to a win by hints and has the play rated, but
/// cannot read a designer route; from an origin not listed nothing gets through
/// (tests/browser/cors.mjs says exactly what it checks).
#[tokio::test]
#[cfg_attr(
    not(feature = "test-browser"),
    ignore = "needs Chromium and Node: scripts/test.sh sets them up"
)]
async fn cors_lets_only_listed_origins_play_in_headless_chromium() {
    const PAGE: &str = include_str!("../browser/cors-page.html");
    let allowed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let denied = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let allowed_origin = format!("http://{}", allowed.local_addr().unwrap());
    let denied_origin = format!("http://{}", denied.local_addr().unwrap());
    let pages = [
        tokio::spawn(serve_page(allowed, PAGE)),
        tokio::spawn(serve_page(denied, PAGE)),
    ];
    let server = spawn_for_browser(&["--cors-allowed-origins", &allowed_origin]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cors");
    let pages_urls = [format!("{allowed_origin}/"), format!("{denied_origin}/")];
    println!(
        "{}",
        run_browser_script(
            &server,
            "cors.mjs",
            &shots,
            &[&pages_urls[0], &pages_urls[1]]
        )
        .await
    );
    for page in pages {
        page.abort();
    }
    server.stop().await;
}
