//! Attacks from outside (docs/security.md's threat table names the test of each row):
//! forged plays, designer routes without a key, secrets at rest, revocation across
//! replicas, cross-origin calls, the ops listener. Store-backed ones run on both backends.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::cli::levelforge;
use crate::helpers::{Answer, Backend, TestApp, TestDatabase, client, free_port, make_key};

on_both_backends!(
    a_forged_play_cannot_move_another_players_rating,
    no_designer_route_answers_without_a_designer_key,
    no_secret_is_stored_in_the_database,
    a_revoked_key_fails_on_a_second_replica_within_5_s,
    an_erased_player_leaves_every_count_and_loses_its_token,
    the_dashboard_session_is_a_strict_cookie_refused_cross_site,
);

async fn start(backend: Backend, flags: &[&str]) -> TestApp {
    TestApp::on(&TestDatabase::of(backend).await, flags).await
}

/// The rating `GET /players/me` shows for `game`, if any.
async fn rating_of(app: &TestApp, token: &str, game: &str) -> Option<f64> {
    let me = app.get_as(token, "/players/me").await;
    assert_eq!(me.status, 200, "{}", me.body);
    me.json()["ratings"][game]["rating"].as_f64()
}

async fn a_forged_play_cannot_move_another_players_rating(backend: Backend) {
    let app = start(backend, &["--rate-limit-plays-per-min", "0"]).await;
    let victim = app.new_player().await;
    let level = app.get_level("fruit", "easy", 1).await;
    let won = json!({"solved": true, "moves": level["solution"]});
    let first = app
        .post_play_as(&victim.token, "fruit", "easy", 1, &won)
        .await;
    assert_eq!(
        (first.status, first.json()["rated"].as_bool()),
        (StatusCode::CREATED, Some(true))
    );
    let before = rating_of(&app, &victim.token, "fruit").await;
    assert!(before.is_some_and(|r| r > 1500.0));

    // The old attack: a body naming the victim. Refused, naming the token flow.
    for seed in 2..=51 {
        let forged = json!({"solved": false, "moves": "", "client": victim.id});
        let path = format!("/levels/easy/{seed}/plays?game=fruit");
        let answer = app.anonymous_post(&path, &forged).await;
        assert_eq!(answer.status, 400, "{}", answer.body);
        assert!(
            answer.json()["detail"]
                .as_str()
                .unwrap()
                .contains("POST /players")
        );
    }
    // Without a token a play is stored but anonymous and unrated; with the attacker's own
    // token it rates the attacker; a made-up or player-id-as-token credential is 401.
    let attacker = app.new_player().await;
    let lost = json!({"solved": false, "moves": "U"});
    let anonymous = app
        .anonymous_post("/levels/easy/2/plays?game=fruit", &lost)
        .await;
    assert_eq!(
        (anonymous.status, anonymous.json()["rated"].as_bool()),
        (StatusCode::CREATED, Some(false))
    );
    let own = app
        .post_play_as(&attacker.token, "fruit", "easy", 2, &lost)
        .await;
    assert_eq!(own.json()["rated"], true);
    let tampered = victim.token.replace(&victim.id, &attacker.id);
    for token in [
        victim.id.as_str(),
        tampered.as_str(),
        "lfp_0000000000000000_x",
    ] {
        let answer = app.post_play_as(token, "fruit", "easy", 3, &lost).await;
        assert_eq!(answer.status, 401, "{token}: {}", answer.body);
        assert!(
            answer.headers["www-authenticate"]
                .to_str()
                .unwrap()
                .starts_with("Bearer")
        );
    }
    assert_eq!(rating_of(&app, &victim.token, "fruit").await, before);
    // A designer key is not a player.
    let as_key = app
        .post_play_as(&app.designer_key, "fruit", "easy", 4, &lost)
        .await;
    assert_eq!(as_key.status, 403);
    app.stop().await;
}

/// Every designer route, as (method, path, body).
fn designer_routes(level: &Value) -> Vec<(&'static str, &'static str, Option<Value>)> {
    vec![
        ("GET", "/stats", None),
        ("GET", "/stats?format=csv", None),
        ("GET", "/levels?game=fruit", None),
        ("POST", "/verify?game=fruit", Some(level.clone())),
        ("POST", "/preview.svg?game=fruit", Some(level.clone())),
        ("GET", "/session", None),
    ]
}

async fn send(
    app: &TestApp,
    (method, path, body): &(&str, &str, Option<Value>),
    token: Option<&str>,
) -> Answer {
    let http = client();
    let mut request = match *method {
        "GET" => http.get(app.url(path)),
        _ => http.post(app.url(path)).json(body.as_ref().unwrap()),
    };
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    Answer {
        status: response.status(),
        headers: response.headers().clone(),
        body: response.text().await.unwrap(),
    }
}

async fn no_designer_route_answers_without_a_designer_key(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let level = app.get_level("fruit", "easy", 1).await;
    let player = app.new_player().await;
    let store = levelforge::service::store::connect(&database.url, 1)
        .await
        .unwrap();
    let expired = expired_key(&store).await;
    let revoked = make_key(&store).await;
    let revoked_id = revoked[4..12].to_string();
    store
        .revoke_key(&revoked_id, levelforge::service::credentials::now())
        .await
        .unwrap();
    for route in designer_routes(&level) {
        let what = format!("{} {}", route.0, route.1);
        let none = send(&app, &route, None).await;
        assert_eq!(none.status, 401, "{what}: {}", none.body);
        assert!(none.is_problem(), "{what}");
        assert_eq!(
            none.headers["www-authenticate"], "Bearer realm=\"levelforge\"",
            "{what}"
        );
        for (token, status) in [
            (player.token.as_str(), 403),
            (expired.as_str(), 401),
            (revoked.as_str(), 401),
            ("lfk_00000000_notakey", 401),
        ] {
            let answer = send(&app, &route, Some(token)).await;
            assert_eq!(
                answer.status,
                status,
                "{what} with {}: {}",
                &token[..4],
                answer.body
            );
            assert!(answer.is_problem(), "{what}");
        }
        let designer = send(&app, &route, Some(&app.designer_key)).await;
        assert_eq!(designer.status, 200, "{what}: {}", designer.body);
    }
    // The game routes stay open.
    assert_eq!(
        app.anonymous_get("/levels/easy/1?game=fruit").await.status,
        200
    );
    assert_eq!(app.anonymous_get("/games").await.status, 200);
    app.stop().await;
}

/// A designer key that expired a moment ago.
async fn expired_key(store: &std::sync::Arc<dyn levelforge::service::store::Store>) -> String {
    let key = levelforge::service::credentials::NewSecret::generate(
        levelforge::service::credentials::Kind::Key,
    );
    let now = levelforge::service::credentials::now();
    store
        .create_key(&levelforge::service::store::NewKey {
            id: &key.id,
            name: "expired",
            role: "designer",
            secret_hash: &key.hash,
            created_at: now - 10,
            expires_at: Some(now - 1),
        })
        .await
        .unwrap();
    key.token
}

async fn no_secret_is_stored_in_the_database(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let player = app.new_player().await;
    let level = app.get_level("fruit", "easy", 1).await;
    let won = json!({"solved": true, "moves": level["solution"]});
    app.post_play_as(&player.token, "fruit", "easy", 1, &won)
        .await;
    let session = sign_in(&app, &app.designer_key).await;
    assert_eq!(app.designer_get("/stats").await.status, 200);
    // The secret part of each token (after its public id) must be nowhere at rest.
    let secrets: Vec<String> = [&player.token, &app.designer_key, &session]
        .iter()
        .map(|token| token[4..].split_once('_').unwrap().1.to_string())
        .collect();
    let stored = everything_stored(&database).await;
    assert!(stored.len() > 1000, "the dump holds the data");
    for secret in &secrets {
        assert!(secret.len() >= 43);
        assert!(
            !stored.contains(secret.as_str()),
            "a secret is stored in the clear"
        );
    }
    app.stop().await;
}

/// Every byte of a SQLite database's files, or every row of every PostgreSQL table as text.
pub(crate) async fn everything_stored(database: &TestDatabase) -> String {
    if let Some(path) = database.url.strip_prefix("sqlite://") {
        let mut all = Vec::new();
        for suffix in ["", "-wal"] {
            all.extend(std::fs::read(format!("{path}{suffix}")).unwrap_or_default());
        }
        return String::from_utf8_lossy(&all).into_owned();
    }
    use sqlx::{Connection, Row};
    let mut conn = sqlx::PgConnection::connect(&database.url).await.unwrap();
    let tables: Vec<String> =
        sqlx::query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'")
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
    let mut all = String::new();
    for table in tables {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT t::text FROM {table} t"
        )))
        .fetch_all(&mut conn)
        .await
        .unwrap();
        for row in rows {
            all.push_str(&row.get::<String, _>(0));
        }
    }
    all
}

/// Signs in with `key`; the session token from the cookie.
async fn sign_in(app: &TestApp, key: &str) -> String {
    let answer = app.anonymous_post("/session", &json!({ "key": key })).await;
    assert_eq!(answer.status, 204, "{}", answer.body);
    let cookie = answer.headers["set-cookie"].to_str().unwrap().to_string();
    cookie
        .split(';')
        .next()
        .unwrap()
        .strip_prefix("levelforge_session=")
        .unwrap()
        .to_string()
}

async fn a_revoked_key_fails_on_a_second_replica_within_5_s(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let first = TestApp::on(&database, &[]).await;
    let second = TestApp::on(&database, &[]).await;
    let key = first.designer_key.clone();
    // Both replicas know the key (and so cache it).
    for replica in [&first, &second] {
        assert_eq!(replica.get_as(&key, "/stats").await.status, 200);
    }
    let store = levelforge::service::store::connect(&database.url, 1)
        .await
        .unwrap();
    let revoked = Instant::now();
    store
        .revoke_key(&key[4..12], levelforge::service::credentials::now())
        .await
        .unwrap()
        .expect("revoked");
    loop {
        let status = second.get_as(&key, "/stats").await.status;
        if status == 401 {
            break;
        }
        assert_eq!(status, 200);
        assert!(
            revoked.elapsed() < Duration::from_secs(5),
            "still accepted after 5 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "refused by the second replica after {:?}",
        revoked.elapsed()
    );
    first.stop().await;
    second.stop().await;
}

async fn an_erased_player_leaves_every_count_and_loses_its_token(backend: Backend) {
    let database = TestDatabase::of(backend).await;
    let app = TestApp::on(&database, &[]).await;
    let player = app.new_player().await;
    let me = app.get_as(&player.token, "/players/me").await;
    assert_eq!(me.json(), json!({"player": player.id, "ratings": {}}));
    assert_eq!(me.header("cache-control"), "no-store");
    for seed in 1..=3 {
        let level = app.get_level("fruit", "easy", seed).await;
        let won = json!({"solved": true, "moves": level["solution"]});
        let answer = app
            .post_play_as(&player.token, "fruit", "easy", seed, &won)
            .await;
        assert_eq!(answer.json()["rated"], true);
    }
    let ratings = app.get_as(&player.token, "/players/me").await.json();
    assert_eq!(ratings["ratings"]["fruit"]["plays"], 3, "{ratings}");
    let before = app.get_stats("game=fruit").await;
    let erase = client()
        .delete(app.url("/players/me"))
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap();
    assert_eq!(erase.status(), 204);
    assert_eq!(app.get_as(&player.token, "/players/me").await.status, 401);
    assert_eq!(
        app.get_stats("game=fruit").await,
        before,
        "every count unchanged"
    );
    // No row names the erased player; the three plays stay, anonymous.
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
    for (sql, expected) in [
        ("SELECT COUNT(*) FROM player_accounts WHERE id = $1", 0),
        ("SELECT COUNT(*) FROM players WHERE client = $1", 0),
        ("SELECT COUNT(*) FROM plays WHERE client = $1", 0),
        (
            "SELECT COUNT(*) FROM plays WHERE client IS NULL AND $1 <> ''",
            3,
        ),
    ] {
        let count: i64 = sqlx::query_scalar(sql)
            .bind(&player.id)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(count, expected, "{sql}");
    }
    app.stop().await;
}

async fn the_dashboard_session_is_a_strict_cookie_refused_cross_site(backend: Backend) {
    let app = start(backend, &[]).await;
    let answer = app
        .anonymous_post("/session", &json!({"key": app.designer_key}))
        .await;
    assert_eq!(answer.status, 204);
    let cookie = answer.header("set-cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "not configured");
    let session = cookie.split(';').next().unwrap().to_string();
    let with_cookie = |method: reqwest::Method, path: &str| {
        client()
            .request(method, app.url(path))
            .header("cookie", session.clone())
    };
    let me = with_cookie(reqwest::Method::GET, "/session")
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    let level = app.get_level("fruit", "easy", 1).await;
    let origin = format!("http://{}", app.address());
    for (from, status) in [(origin.as_str(), 200), ("http://evil.example", 403)] {
        let verify = with_cookie(reqwest::Method::POST, "/verify?game=fruit")
            .header("origin", from)
            .json(&level)
            .send()
            .await
            .unwrap();
        assert_eq!(verify.status(), status, "from {from}");
    }
    // A wrong key does not sign in; a player token neither.
    let player = app.new_player().await;
    for key in ["lfk_00000000_nope", player.token.as_str()] {
        let refused = app.anonymous_post("/session", &json!({"key": key})).await;
        assert_eq!(refused.status, 401, "{}", refused.body);
    }
    let out = with_cookie(reqwest::Method::DELETE, "/session")
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 204);
    assert!(
        out.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let after = with_cookie(reqwest::Method::GET, "/stats")
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 401, "the session ended");
    app.stop().await;
}

#[tokio::test]
async fn dashboard_pages_forbid_framing_sniffing_and_inline_script() {
    let app = TestApp::spawn().await;
    for path in ["/", "/dashboard/app.js", "/dashboard/style.css"] {
        let answer = app.anonymous_get(path).await;
        let csp = answer.header("content-security-policy");
        for directive in [
            "default-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(!csp.contains("unsafe-inline"));
        assert_eq!(answer.header("x-content-type-options"), "nosniff");
        assert_eq!(answer.header("referrer-policy"), "no-referrer");
    }
    app.stop().await;
}

#[tokio::test]
async fn new_players_are_rate_limited_per_address() {
    let app = TestApp::spawn_with(&[
        "--rate-limit-players-per-min",
        "10",
        "--rate-limit-players-burst",
        "10",
    ])
    .await;
    let mut statuses = Vec::new();
    for _ in 0..11 {
        let answer = app.anonymous_post("/players", &json!({})).await;
        statuses.push(answer.status.as_u16());
    }
    assert_eq!(statuses[..10], [201; 10]);
    assert_eq!(statuses[10], 429);
    app.stop().await;
}

#[tokio::test]
async fn metrics_are_only_on_the_ops_listener() {
    let app = TestApp::spawn().await;
    let public = app.anonymous_get("/metrics").await;
    assert_eq!(public.status, 404);
    assert!(public.is_problem());
    for path in ["/healthz", "/readyz"] {
        assert_eq!(app.anonymous_get(path).await.status, 200, "public {path}");
        assert_eq!(app.admin_get(path).await.status, 200, "ops {path}");
    }
    assert!(app.admin_get("/metrics").await.body.contains("levelforge_"));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ops_probes_answer_while_the_public_listener_is_full() {
    let app = TestApp::spawn_with(&["--http-max-connections", "50"]).await;
    // 50 open connections fill the public listener; 100 more wait in its backlog.
    let mut held = Vec::new();
    for _ in 0..150 {
        held.push(tokio::net::TcpStream::connect(app.address()).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let public =
        tokio::time::timeout(Duration::from_millis(500), app.anonymous_get("/healthz")).await;
    assert!(public.is_err(), "the public listener is full");
    for path in ["/healthz", "/readyz", "/metrics"] {
        let started = Instant::now();
        let answer = app.admin_get(path).await;
        let took = started.elapsed();
        assert_eq!(answer.status, 200, "{path}");
        // Generous for a busy machine: through the full public listener it never answers.
        assert!(took < Duration::from_secs(2), "{path} took {took:?}");
    }
    drop(held);
    app.stop().await;
}

#[tokio::test]
async fn cross_origin_calls_work_only_from_allowed_origins_and_never_on_designer_routes() {
    let allowed = "http://game.example:3000";
    let app = TestApp::spawn_with(&["--cors-allowed-origins", allowed]).await;
    let preflight = |origin: &str, path: &str, method: &str| {
        client()
            .request(reqwest::Method::OPTIONS, app.url(path))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header(
                "access-control-request-headers",
                "authorization, content-type",
            )
            .send()
    };
    let ok = preflight(allowed, "/levels/easy/1/plays", "POST")
        .await
        .unwrap();
    assert!(ok.status().is_success(), "{}", ok.status());
    assert_eq!(ok.headers()["access-control-allow-origin"], allowed);
    let headers = ok.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap();
    assert!(headers.contains("authorization"), "{headers}");
    for (origin, path) in [
        ("http://evil.example", "/levels/easy/1/plays"),
        (allowed, "/verify"),
        (allowed, "/stats"),
    ] {
        let refused = preflight(origin, path, "POST").await.unwrap();
        assert!(
            !refused
                .headers()
                .contains_key("access-control-allow-origin"),
            "{origin} {path}"
        );
    }
    // A warm level: the allowed origin gets it with CORS headers, and every answer tells
    // caches that it varies by origin.
    for _ in 0..2 {
        let level = get_from(&app, "/levels/easy/1", allowed, None).await;
        assert_eq!(level.headers()["access-control-allow-origin"], allowed);
    }
    let plain = app.anonymous_get("/levels/easy/1").await;
    let vary: Vec<_> = plain
        .headers
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(vary.iter().any(|v| v.contains("origin")), "{vary:?}");
    // A designer route sends no CORS header even to the allowed origin with a key.
    let stats = get_from(&app, "/stats", allowed, Some(&app.designer_key)).await;
    assert!(!stats.headers().contains_key("access-control-allow-origin"));
    app.stop().await;

    // By default no origin is allowed.
    let closed = TestApp::spawn().await;
    let level = get_from(&closed, "/levels/easy/1", allowed, None).await;
    assert!(!level.headers().contains_key("access-control-allow-origin"));
    closed.stop().await;
}

/// A GET as a browser on `origin` sends it, with a Bearer token when given.
async fn get_from(
    app: &TestApp,
    path: &str,
    origin: &str,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = client().get(app.url(path)).header("origin", origin);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn keys_are_created_listed_and_revoked_from_the_command_line() {
    let database = TestDatabase::sqlite();
    let url = ["--database-url", &database.url];
    let create = |name: &str| {
        let mut args = vec!["keys", "create", "--role", "designer", "--name", name];
        args.extend(url);
        levelforge(&args)
    };
    let made = create("ada");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let stdout = String::from_utf8(made.stdout).unwrap();
    let key = stdout.lines().last().unwrap();
    assert!(key.starts_with("lfk_") && !key.contains(' ') && key.len() >= 4 + 8 + 1 + 43);
    assert!(!create("ada").status.success(), "one live key per name");
    let app = TestApp::on(&database, &[]).await;
    assert_eq!(app.get_as(key, "/stats").await.status, 200);
    let mut list = vec!["keys", "list"];
    list.extend(url);
    let listed = String::from_utf8(levelforge(&list).stdout).unwrap();
    let header = listed.lines().next().unwrap();
    for column in [
        "id",
        "name",
        "role",
        "prefix",
        "created",
        "expires",
        "last used",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let row = listed.lines().find(|l| l.contains("ada")).unwrap();
    assert!(row.contains(&key[..12]) && row.contains("designer") && row.contains("live"));
    assert!(!listed.contains(&key[13..]), "the secret is never listed");
    let mut revoke = vec!["keys", "revoke", "ada"];
    revoke.extend(url);
    assert!(levelforge(&revoke).status.success());
    tokio::time::sleep(
        levelforge::service::credentials::CREDENTIAL_CACHE + Duration::from_millis(200),
    )
    .await;
    assert_eq!(app.get_as(key, "/stats").await.status, 401);
    let listed = String::from_utf8(levelforge(&list).stdout).unwrap();
    assert!(
        listed
            .lines()
            .any(|l| l.contains("ada") && l.contains("revoked"))
    );
    app.stop().await;
}

#[tokio::test]
async fn the_first_start_makes_one_key_and_prints_a_sign_in_link_once() {
    let database = TestDatabase::sqlite();
    let run = |policy: &str| {
        let bind = format!("127.0.0.1:{}", free_port());
        let admin = format!("127.0.0.1:{}", free_port());
        std::process::Command::new(env!("CARGO_BIN_EXE_levelforge"))
            .args(["serve", "--bind", &bind, "--admin-bind", &admin])
            .args(["--database-url", &database.url, "--first-run-key", policy])
            .env("RUST_LOG", "info")
            .env("LOG_FORMAT", "text")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // What the server says on standard error up to its "listening" line (the first-run
    // link comes before it), then it is stopped.
    let stop = |mut child: std::process::Child| {
        use std::io::BufRead;
        let mut said = String::new();
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        for line in stderr.lines().map_while(Result::ok) {
            said.push_str(&line);
            said.push('\n');
            if line.contains("levelforge listening") {
                break;
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        said
    };
    // `never`: no key, and designer routes closed all the same.
    let child = run("never");
    let said = stop(child);
    assert!(said.contains("no live key"), "{said}");
    // `always` (as a terminal would): one link, whose key signs in.
    let child = run("always");
    let said = stop(child);
    let link = said
        .lines()
        .find(|l| l.contains("/#key="))
        .expect("a sign-in link");
    let key = link.rsplit("#key=").next().unwrap().trim();
    let app = TestApp::on(&database, &[]).await;
    assert_eq!(
        app.anonymous_post("/session", &json!({"key": key}))
            .await
            .status,
        204
    );
    // A second start finds the key and makes none.
    let child = run("always");
    let said = stop(child);
    assert!(!said.contains("#key="), "{said}");
    app.stop().await;
}
