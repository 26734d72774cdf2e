//! What every integration test starts from: a [`TestApp`] (the real router, store and
//! pipeline on a random local port) over a [`TestDatabase`] of its own, removed when the
//! test ends, even when it panics.
//!
//! A new test: `let app = TestApp::spawn().await;`, then the typed helpers (`get_level`,
//! `post_check`, `post_play`, `get_stats`, ...) or `get`/`post` for anything else.
//! A test that needs PostgreSQL carries
//! `#[cfg_attr(not(feature = "test-postgres"), ignore = "needs PostgreSQL: scripts/test.sh sets it up")]`,
//! so plain `cargo test` lists it as ignored and scripts/test.sh, which provides the
//! server, runs it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use levelforge::config::{Cli, Command};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, oneshot};
use tokio::task::JoinHandle;

/// The PostgreSQL server the tests create their databases on: `LEVELFORGE_TEST_POSTGRES`
/// (scripts/test.sh points it at its throwaway cluster), else the local default.
pub fn postgres_admin_url() -> String {
    std::env::var("LEVELFORGE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A name no other test (in this process or another) uses.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{prefix}_{}_{}_{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A file in the temp directory, removed on drop (with SQLite's side files).
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(extension: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("{}.{extension}", unique("levelforge_test"))))
    }

    pub fn path(&self) -> &str {
        self.0.to_str().expect("temp paths are UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A database of one test's own: a SQLite file or a PostgreSQL database, removed on drop.
pub struct TestDatabase {
    pub url: String,
    sqlite_file: Option<TempFile>,
}

impl TestDatabase {
    pub fn sqlite() -> Arc<TestDatabase> {
        let file = TempFile::new("db");
        Arc::new(TestDatabase {
            url: format!("sqlite://{}", file.path()),
            sqlite_file: Some(file),
        })
    }

    /// A fresh database on [`postgres_admin_url`]'s server; panics when it is unreachable.
    pub async fn postgres() -> Arc<TestDatabase> {
        use sqlx::Connection;
        let admin = postgres_admin_url();
        let name = unique("levelforge_test");
        let mut conn = sqlx::PgConnection::connect(&admin)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL at {admin} is needed for this test: {e}"));
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap();
        let (server, _) = admin.rsplit_once('/').expect("admin URL names a database");
        Arc::new(TestDatabase {
            url: format!("{server}/{name}"),
            sqlite_file: None,
        })
    }

    /// Both backends, for tests that must hold on each.
    pub async fn of(backend: Backend) -> Arc<TestDatabase> {
        match backend {
            Backend::Sqlite => TestDatabase::sqlite(),
            Backend::Postgres => TestDatabase::postgres().await,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if self.sqlite_file.is_some() {
            return; // the TempFile removes itself
        }
        // Drop may run during a panic or outside any runtime: a thread of its own, with
        // a runtime of its own, and a warning rather than a panic on failure.
        let name = self.url.rsplit('/').next().unwrap_or_default().to_string();
        let dropped = std::thread::spawn(move || {
            use sqlx::Connection;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let mut conn = sqlx::PgConnection::connect(&postgres_admin_url()).await?;
                // FORCE closes the sessions of servers the test left running.
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut conn)
                .await?;
                anyhow::Ok(())
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("warning: test database {} was not dropped", self.url);
        }
    }
}

/// One answer, read whole: status, headers and body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    async fn read(response: reqwest::Response) -> Answer {
        Answer {
            status: response.status(),
            headers: response.headers().clone(),
            body: response.text().await.unwrap(),
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("no {name} header"))
            .to_str()
            .unwrap()
    }

    /// An RFC 9457 problem whose `status` matches the HTTP status.
    pub fn is_problem(&self) -> bool {
        self.headers
            .get("content-type")
            .is_some_and(|t| t == "application/problem+json")
            && self.json()["status"] == self.status.as_u16()
    }
}

/// A client that does not follow redirects, so tests see them.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

enum Running {
    InProcess {
        stop: oneshot::Sender<()>,
        task: tokio::task::JoinHandle<()>,
    },
    Child(tokio::process::Child),
}

/// A player made by `POST /players`.
pub struct Player {
    pub id: String,
    pub token: String,
}

/// The service under test, on `127.0.0.1` and a random port.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The ops listener (`ADMIN_BIND`): `http://127.0.0.1:PORT`
    pub admin_base: String,
    /// A designer key made for the test (`levelforge keys create` does the same).
    pub designer_key: String,
    /// Kept alive (and so not yet removed) while the app runs.
    database: Arc<TestDatabase>,
    http: reqwest::Client,
    running: Option<Running>,
    /// Players the tests call by name (`post_play`'s `client`), made on first use.
    named_players: Mutex<std::collections::HashMap<String, String>>,
}

impl TestApp {
    /// A server on a SQLite database of its own.
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(&[]).await
    }

    /// A server on a SQLite database of its own, with extra `serve` flags.
    pub async fn spawn_with(flags: &[&str]) -> TestApp {
        TestApp::on(&TestDatabase::sqlite(), flags).await
    }

    /// A server on `database`, which it keeps alive; several servers may share one.
    pub async fn on(database: &Arc<TestDatabase>, flags: &[&str]) -> TestApp {
        TestApp::on_url(database, &database.url.clone(), flags).await
    }

    /// A server that reaches `database` through another URL (a proxy in front of it).
    pub async fn on_url(database: &Arc<TestDatabase>, url: &str, flags: &[&str]) -> TestApp {
        let mut argv = vec!["levelforge", "serve", "--database-url", url];
        // Tests make many players from one address; the limits have tests of their own.
        argv.extend(unlimited_players(flags));
        argv.extend_from_slice(flags);
        let Some(Command::Serve(args)) = <Cli as clap::Parser>::try_parse_from(argv)
            .expect("serve flags")
            .command
        else {
            unreachable!("the argv starts with serve")
        };
        let state = levelforge::http::AppState::new(&args)
            .await
            .expect("app state");
        let designer_key = make_key(state.auth.store()).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let admin = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let admin_base = format!("http://{}", admin.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let (admin_stop, admin_stopped) = oneshot::channel::<()>();
        let admin_state = state.clone();
        tokio::spawn(async move {
            let _ = levelforge::http::serve::serve_admin(admin, admin_state, async {
                let _ = admin_stopped.await;
            })
            .await;
        });
        let task = tokio::spawn(async move {
            levelforge::http::serve::serve(listener, state, async {
                let _ = stopped.await;
                let _ = admin_stop.send(());
            })
            .await
            .expect("server");
        });
        TestApp {
            base,
            admin_base,
            designer_key,
            database: database.clone(),
            http: client(),
            running: Some(Running::InProcess { stop, task }),
            named_players: Mutex::default(),
        }
    }

    /// The binary itself in a child process (killed on drop), on a SQLite database of its
    /// own: for tests that read `/metrics`, whose recorder the in-process servers share.
    pub async fn spawn_process(flags: &[&str]) -> TestApp {
        let database = TestDatabase::sqlite();
        // The binary does not report the port it bound, so take a free one first.
        let port = free_port();
        let bind = format!("127.0.0.1:{port}");
        let admin_bind = format!("127.0.0.1:{}", free_port());
        let designer_key = make_key(
            &levelforge::service::store::connect(&database.url, 1)
                .await
                .unwrap(),
        )
        .await;
        let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_levelforge"))
            .args(["serve", "--bind", &bind, "--database-url", &database.url])
            .args(["--admin-bind", &admin_bind])
            .args(unlimited_players(flags))
            .args(flags)
            .env("RUST_LOG", "error")
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the levelforge binary starts");
        let app = TestApp {
            base: format!("http://{bind}"),
            admin_base: format!("http://{admin_bind}"),
            designer_key,
            database,
            http: client(),
            running: Some(Running::Child(child)),
            named_players: Mutex::default(),
        };
        // 30 s: a debug binary on a busy machine can take a while to open its port.
        for _ in 0..600 {
            if app.http.get(app.url("/healthz")).send().await.is_ok() {
                return app;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the levelforge binary did not answer on {bind} within 30 s");
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A GET with `Authorization: Bearer <token>`.
    pub async fn get_as(&self, token: &str, path: &str) -> Answer {
        let request = self.http.get(self.url(path)).bearer_auth(token);
        Answer::read(request.send().await.unwrap()).await
    }

    /// A POST of JSON with `Authorization: Bearer <token>`.
    pub async fn post_as(&self, token: &str, path: &str, body: &Value) -> Answer {
        let request = self.http.post(self.url(path)).bearer_auth(token).json(body);
        Answer::read(request.send().await.unwrap()).await
    }

    /// A GET with the test's designer key.
    pub async fn designer_get(&self, path: &str) -> Answer {
        self.get_as(&self.designer_key, path).await
    }

    /// A POST with the test's designer key.
    pub async fn designer_post(&self, path: &str, body: &Value) -> Answer {
        self.post_as(&self.designer_key, path, body).await
    }

    /// A PUT of JSON with the test's designer key.
    pub async fn designer_put(&self, path: &str, body: &Value) -> Answer {
        let request = self
            .http
            .put(self.url(path))
            .bearer_auth(&self.designer_key);
        Answer::read(request.json(body).send().await.unwrap()).await
    }

    /// A request of any method, with `token` as Bearer when given, and headers.
    pub async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = self.http.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Answer::read(request.send().await.unwrap()).await
    }

    /// A new player (`POST /players`, which must answer 201).
    pub async fn new_player(&self) -> Player {
        let answer = Answer::read(self.http.post(self.url("/players")).send().await.unwrap()).await;
        assert_eq!(
            answer.status,
            StatusCode::CREATED,
            "POST /players: {}",
            answer.body
        );
        let body = answer.json();
        Player {
            id: body["player"].as_str().unwrap().to_string(),
            token: body["token"].as_str().unwrap().to_string(),
        }
    }

    /// `POST /levels/{difficulty}/{seed}/plays?game=...` as the player of `token`.
    pub async fn post_play_as(
        &self,
        token: &str,
        game: &str,
        difficulty: &str,
        seed: u64,
        play: &Value,
    ) -> Answer {
        let path = format!("/levels/{difficulty}/{seed}/plays?game={game}");
        self.post_as(token, &path, play).await
    }

    /// A GET on the ops listener.
    pub async fn admin_get(&self, path: &str) -> Answer {
        let url = format!("{}{path}", self.admin_base);
        Answer::read(self.http.get(url).send().await.unwrap()).await
    }

    /// `host:port`, for raw TCP tests.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// A GET; on a designer route (browse, stats) with the test's designer key, as the
    /// dashboard would send it. `anonymous_get` sends none.
    pub async fn get(&self, path: &str) -> Answer {
        if is_designer_route(path) {
            return self.designer_get(path).await;
        }
        self.anonymous_get(path).await
    }

    /// A GET without any credential.
    pub async fn anonymous_get(&self, path: &str) -> Answer {
        Answer::read(self.http.get(self.url(path)).send().await.unwrap()).await
    }

    /// A GET answered 200 with JSON: the JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let answer = self.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "GET {path}: {}", answer.body);
        answer.json()
    }

    /// A POST of JSON; on a designer route (verify, preview) with the test's designer key.
    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        if is_designer_route(path) {
            return self.designer_post(path, body).await;
        }
        self.anonymous_post(path, body).await
    }

    /// A POST of JSON without any credential.
    pub async fn anonymous_post(&self, path: &str, body: &Value) -> Answer {
        let request = self.http.post(self.url(path)).json(body);
        Answer::read(request.send().await.unwrap()).await
    }

    /// `GET /levels/{difficulty}/{seed}?game=...`, which must answer 200.
    pub async fn get_level(&self, game: &str, difficulty: &str, seed: u64) -> Value {
        self.get_json(&format!("/levels/{difficulty}/{seed}?game={game}"))
            .await
    }

    /// `POST /levels/{difficulty}/{seed}/check?game=...` with `{"moves": moves}`.
    pub async fn post_check(
        &self,
        game: &str,
        difficulty: &str,
        seed: u64,
        moves: &Value,
    ) -> Answer {
        let path = format!("/levels/{difficulty}/{seed}/check?game={game}");
        self.post(&path, &serde_json::json!({ "moves": moves }))
            .await
    }

    /// `POST /levels/{difficulty}/{seed}/plays?game=...` with `play` as the body. A
    /// `client` in `play` names a test player: it leaves the body, and the play is sent
    /// with that player's token (made on first use); without it the play is anonymous.
    pub async fn post_play(&self, game: &str, difficulty: &str, seed: u64, play: &Value) -> Answer {
        let path = format!("/levels/{difficulty}/{seed}/plays?game={game}");
        let mut body = play.clone();
        match body.as_object_mut().and_then(|b| b.remove("client")) {
            Some(Value::String(name)) => {
                let token = self.named_player(&name).await;
                self.post_as(&token, &path, &body).await
            }
            _ => self.anonymous_post(&path, &body).await,
        }
    }

    /// The token of the test player called `name`.
    pub async fn named_player(&self, name: &str) -> String {
        let mut players = self.named_players.lock().await;
        if let Some(token) = players.get(name) {
            return token.clone();
        }
        let token = self.new_player().await.token;
        players.insert(name.to_string(), token.clone());
        token
    }

    /// Makes the player of `token` established in `game` (docs/http.md#ratings-glicko-2),
    /// so that its rated plays move levels: rating 1500 at the deviation and the count of
    /// rated plays the rule asks for, written to the database as if it had played them.
    /// For tests of what a level's rating does; the rule itself has tests of its own.
    pub async fn establish(&self, token: &str, game: &str) {
        use levelforge::service::rating::{ESTABLISHED_AFTER_PLAYS, ESTABLISHED_DEVIATION};
        let id = token
            .split('_')
            .nth(1)
            .expect("a player token: lfp_ID_SECRET");
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&self.database.url).await.unwrap();
        sqlx::query(
            "INSERT INTO players (game, client, rating, rating_deviation, rating_volatility,
                rated_plays)
            VALUES ($1, $2, 1500, $3, 0.06, $4)
            ON CONFLICT (game, client) DO UPDATE SET rating = 1500, rating_deviation = $3,
                rating_volatility = 0.06, rated_plays = $4",
        )
        .bind(game)
        .bind(id)
        .bind(ESTABLISHED_DEVIATION)
        .bind(ESTABLISHED_AFTER_PLAYS)
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    }

    /// The token of the test player called `name`, established in `game`.
    pub async fn established_player(&self, name: &str, game: &str) -> String {
        let token = self.named_player(name).await;
        self.establish(&token, game).await;
        token
    }

    /// `GET /stats?{query}` as a designer, which must answer 200.
    pub async fn get_stats(&self, query: &str) -> Value {
        self.designer_json(&format!("/stats?{query}")).await
    }

    /// `GET /levels?{query}` (browse) as a designer, which must answer 200.
    pub async fn browse(&self, query: &str) -> Value {
        self.designer_json(&format!("/levels?{query}")).await
    }

    /// A designer GET answered 200 with JSON: the JSON.
    pub async fn designer_json(&self, path: &str) -> Value {
        let answer = self.designer_get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "GET {path}: {}", answer.body);
        answer.json()
    }

    /// The `/metrics` text, from the ops listener.
    pub async fn metrics(&self) -> String {
        let answer = self.admin_get("/metrics").await;
        assert_eq!(answer.status, StatusCode::OK);
        assert!(answer.header("content-type").starts_with("text/plain"));
        answer.body
    }

    /// Each path must answer 400 problem+json.
    pub async fn assert_bad_requests(&self, paths: &[&str]) {
        for path in paths {
            let answer = self.get(path).await;
            assert_eq!(
                answer.status,
                StatusCode::BAD_REQUEST,
                "{path}: {}",
                answer.body
            );
            assert!(answer.is_problem(), "{path}: {}", answer.body);
        }
    }

    /// Graceful stop: waits for in-flight requests.
    pub async fn stop(mut self) {
        match self.running.take() {
            Some(Running::InProcess { stop, task }) => {
                let _ = stop.send(());
                task.await.unwrap();
            }
            Some(Running::Child(mut child)) => {
                child.kill().await.unwrap();
            }
            None => {}
        }
    }
}

/// Flags turning off the limits on new players (per client and per network) that `flags`
/// does not set itself.
fn unlimited_players(flags: &[&str]) -> Vec<&'static str> {
    [
        "--rate-limit-players-per-min",
        "--rate-limit-players-per-network-per-min",
    ]
    .into_iter()
    .filter(|flag| !flags.contains(flag))
    .flat_map(|flag| [flag, "0"])
    .collect()
}

/// The designer routes (openapi.yaml's `designerKey` operations) a GET or POST reaches:
/// browse, stats (a collection's too), verify and the preview of a posted level.
pub fn is_designer_route(path: &str) -> bool {
    let route = path.split('?').next().unwrap_or(path);
    ["/levels", "/stats", "/verify", "/preview.svg"].contains(&route)
        || route.starts_with("/stats/collections/")
}

/// A port free on 127.0.0.1 a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A designer key on `store`, as `levelforge keys create` makes one.
pub async fn make_key(store: &std::sync::Arc<dyn levelforge::service::store::Store>) -> String {
    let name = unique("designer");
    levelforge::service::credentials::new_key(
        store.as_ref(),
        levelforge::service::credentials::Role::Designer,
        &name,
        None,
    )
    .await
    .expect("a designer key")
    .token
}

/// A TCP proxy in front of PostgreSQL that the test cuts (every link dropped, new ones
/// accepted and closed at once) or closes (nothing listens: the port refuses) and
/// restores, without touching the shared cluster.
pub struct Proxy {
    pub port: u16,
    upstream: String,
    up: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accepting: Mutex<Option<JoinHandle<()>>>,
}

impl Proxy {
    pub async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            upstream,
            up: Arc::new(AtomicBool::new(true)),
            links: Arc::default(),
            accepting: Mutex::default(),
        };
        proxy.accept_on(listener).await;
        proxy
    }

    /// Forwards every connection `listener` accepts while the proxy is up.
    async fn accept_on(&self, listener: TcpListener) {
        let (up, links, upstream) = (self.up.clone(), self.links.clone(), self.upstream.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !up.load(Ordering::SeqCst) {
                    continue; // dropped: the connection closes at once
                }
                let upstream = upstream.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                let mut links = links.lock().await;
                links.retain(|l: &JoinHandle<()>| !l.is_finished());
                links.push(link);
            }
        });
        *self.accepting.lock().await = Some(accepting);
    }

    /// A fresh database reached through a new proxy: (direct URL, proxied URL, proxy).
    pub async fn in_front_of_new_database() -> (Arc<TestDatabase>, String, Proxy) {
        let direct = TestDatabase::postgres().await;
        let (server_part, database) = direct.url.rsplit_once('/').unwrap();
        let upstream = server_part
            .rsplit_once('@')
            .map_or(server_part, |(_, host)| host)
            .to_string();
        let proxy = Proxy::start(upstream).await;
        let proxied = format!("postgres://postgres@127.0.0.1:{}/{database}", proxy.port);
        (direct, proxied, proxy)
    }

    pub async fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for link in self.links.lock().await.drain(..) {
            link.abort();
        }
    }

    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }

    /// Drops every link and stops listening: connecting to the port is refused at once.
    pub async fn close_port(&self) {
        if let Some(accepting) = self.accepting.lock().await.take() {
            accepting.abort();
            let _ = accepting.await;
        }
        for link in self.links.lock().await.drain(..) {
            link.abort();
        }
    }

    /// Listens on the same port again.
    pub async fn open_port(&self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        self.accept_on(listener).await;
    }
}

/// Reads one HTTP/1.1 answer (head and `Content-Length` body) from a kept-alive connection.
pub async fn read_answer(stream: &mut tokio::io::BufReader<TcpStream>) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        let read = stream.read_line(&mut head).await.unwrap();
        assert!(read > 0, "closed in the middle of an answer: {head}");
    }
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("Content-Length");
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.unwrap();
    head + &String::from_utf8(body).unwrap()
}
