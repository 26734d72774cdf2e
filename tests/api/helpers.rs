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

/// The service under test, on `127.0.0.1` and a random port.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// Kept alive (and so not yet removed) while the app runs.
    _database: Arc<TestDatabase>,
    http: reqwest::Client,
    running: Option<Running>,
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
        argv.extend_from_slice(flags);
        let Some(Command::Serve(args)) = <Cli as clap::Parser>::try_parse_from(argv)
            .expect("serve flags")
            .command
        else {
            unreachable!("the argv starts with serve")
        };
        let state = levelforge::app_state(&args).await.expect("app state");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            levelforge::serve(listener, state, async {
                let _ = stopped.await;
            })
            .await
            .expect("server");
        });
        TestApp {
            base,
            _database: database.clone(),
            http: client(),
            running: Some(Running::InProcess { stop, task }),
        }
    }

    /// The binary itself in a child process (killed on drop), on a SQLite database of its
    /// own: for tests that read `/metrics`, whose recorder the in-process servers share.
    pub async fn spawn_process(flags: &[&str]) -> TestApp {
        let database = TestDatabase::sqlite();
        // The binary does not report the port it bound, so take a free one first.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let bind = format!("127.0.0.1:{port}");
        let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_levelforge"))
            .args(["serve", "--bind", &bind, "--database-url", &database.url])
            .args(flags)
            .env("RUST_LOG", "error")
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the levelforge binary starts");
        let app = TestApp {
            base: format!("http://{bind}"),
            _database: database,
            http: client(),
            running: Some(Running::Child(child)),
        };
        for _ in 0..200 {
            if app.http.get(app.url("/healthz")).send().await.is_ok() {
                return app;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the levelforge binary did not answer on {bind} within 10 s");
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `host:port`, for raw TCP tests.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub async fn get(&self, path: &str) -> Answer {
        Answer::read(self.http.get(self.url(path)).send().await.unwrap()).await
    }

    /// A GET answered 200 with JSON: the JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let answer = self.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "GET {path}: {}", answer.body);
        answer.json()
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
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

    /// `POST /levels/{difficulty}/{seed}/plays?game=...` with `play` as the body.
    pub async fn post_play(&self, game: &str, difficulty: &str, seed: u64, play: &Value) -> Answer {
        let path = format!("/levels/{difficulty}/{seed}/plays?game={game}");
        self.post(&path, play).await
    }

    /// `GET /stats?{query}`, which must answer 200.
    pub async fn get_stats(&self, query: &str) -> Value {
        self.get_json(&format!("/stats?{query}")).await
    }

    /// `GET /levels?{query}` (browse), which must answer 200.
    pub async fn browse(&self, query: &str) -> Value {
        self.get_json(&format!("/levels?{query}")).await
    }

    /// The `/metrics` text.
    pub async fn metrics(&self) -> String {
        let answer = self.get("/metrics").await;
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

/// A TCP proxy in front of PostgreSQL that the test cuts (every link dropped, new ones
/// refused) and restores, without touching the shared cluster.
pub struct Proxy {
    pub port: u16,
    up: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    pub async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let links = Arc::new(Mutex::new(Vec::new()));
        let (accept_up, accept_links) = (up.clone(), links.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !accept_up.load(Ordering::SeqCst) {
                    continue; // dropped: the connection closes at once
                }
                let upstream = upstream.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                let mut links = accept_links.lock().await;
                links.retain(|l: &JoinHandle<()>| !l.is_finished());
                links.push(link);
            }
        });
        Proxy { port, up, links }
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
}
