//! The designer dashboard (`GET /`): its files, and the page itself in Debian's headless
//! Chromium, driven by tests/browser/dashboard.mjs (Playwright). `.ci/run` installs
//! Chromium and the script's one npm package; elsewhere set LEVELFORGE_SKIP_BROWSER=1 to
//! skip the browser run (it is then reported, not silently passed).

mod common;

use std::path::Path;

use common::{Server, client, sqlite_url};
use serde_json::{Value, json};

#[tokio::test]
async fn dashboard_files_are_self_contained_and_revalidate() {
    let server = Server::start(&sqlite_url(), &[]).await;
    for (path, content_type) in [
        ("/", "text/html; charset=utf-8"),
        ("/dashboard/app.js", "text/javascript; charset=utf-8"),
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
    let html = server.text("/").await;
    assert!(
        html.contains("src=\"/dashboard/app.js\"")
            && html.contains("href=\"/dashboard/style.css\"")
    );
    server.stop().await;
}

/// Stores hard skiddy seeds 1..=8 and gives each four players' first plays: the odd
/// seeds are solved, the even ones failed, so ratings, solve rates and charts have data.
async fn seed_levels_and_plays(server: &Server) {
    let pack = client()
        .get(server.url("/levels/hard?game=skiddy&from=1&count=8"))
        .send()
        .await
        .unwrap();
    assert_eq!(pack.status(), 200);
    let levels: Vec<Value> = pack.json().await.unwrap();
    for level in &levels {
        let seed = level["seed"].as_u64().unwrap();
        let moves = if seed % 2 == 1 {
            level["solution"].clone()
        } else {
            json!("")
        };
        for player in 0..4 {
            let body =
                json!({"solved": seed % 2 == 1, "moves": moves, "client": format!("p{player}")});
            let response = client()
                .post(server.url(&format!("/levels/hard/{seed}/plays?game=skiddy")))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 201);
        }
    }
}

#[tokio::test]
async fn dashboard_renders_and_opens_a_level_in_headless_chromium() {
    if std::env::var_os("LEVELFORGE_SKIP_BROWSER").is_some() {
        eprintln!("SKIPPED: LEVELFORGE_SKIP_BROWSER is set; the dashboard was not run in Chromium");
        return;
    }
    let script_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    assert!(
        script_dir.join("node_modules/playwright-core").is_dir()
            && Path::new("/usr/bin/chromium").exists(),
        "the browser test needs Debian's chromium and `npm ci --prefix tests/browser` \
         (.ci/run sets both up), or LEVELFORGE_SKIP_BROWSER=1"
    );
    let server = Server::start(&sqlite_url(), &["--gen-queue-wait-ms", "60000"]).await;
    seed_levels_and_plays(&server).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard");
    let run = tokio::process::Command::new("node")
        .arg(script_dir.join("dashboard.mjs"))
        .arg(server.url(""))
        .arg(&shots)
        .output()
        .await
        .expect("node runs");
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "browser run failed:\n{}\n{report}",
        String::from_utf8_lossy(&run.stderr)
    );
    println!("{report}");
    for shot in ["dashboard.png", "dashboard-level.png"] {
        let png = std::fs::read(shots.join(shot)).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{shot}");
    }
    server.stop().await;
}
