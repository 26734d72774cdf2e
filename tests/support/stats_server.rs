//! Starts the real server (the same router, store and pipeline as the binary) on a random
//! local port, against SQLite or a fresh PostgreSQL database of its own.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

use levelforge::config::{Cli, Command};
use tokio::sync::oneshot;

pub struct Server {
    pub base: String,
    pub database_url: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Server {
    /// Starts a server with `DATABASE_URL` and extra `serve` flags.
    pub async fn start(database_url: &str, extra: &[&str]) -> Server {
        let mut argv = vec![
            "levelforge",
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            database_url,
        ];
        argv.extend_from_slice(extra);
        let Some(Command::Serve(args)) = <Cli as clap::Parser>::try_parse_from(argv)
            .expect("flags")
            .command
        else {
            unreachable!()
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
        Server {
            base,
            database_url: database_url.to_string(),
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Graceful stop: waits for in-flight requests.
    /// The body of a GET of `path`, whatever its status.
    pub async fn text(&self, path: &str) -> String {
        let response = client().get(self.url(path)).send().await.unwrap();
        response.text().await.unwrap()
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap();
        }
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn unique(prefix: &str) -> String {
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

/// A fresh SQLite file in the temp directory.
pub fn sqlite_url() -> String {
    let path = std::env::temp_dir().join(format!("{}.db", unique("levelforge_test")));
    format!("sqlite://{}", path.display())
}

/// The PostgreSQL server the tests use: `LEVELFORGE_TEST_POSTGRES` (set by .ci/run), else
/// the local default. Tests fail rather than skip when it is unreachable.
pub fn postgres_admin_url() -> String {
    std::env::var("LEVELFORGE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A fresh PostgreSQL database of this test's own; returns its URL.
pub async fn postgres_url() -> String {
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
    let (base, _) = admin.rsplit_once('/').expect("admin URL has a database");
    format!("{base}/{name}")
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().build().unwrap()
}

/// Drops a database made by [`postgres_url`] (closing its other sessions first).
pub async fn drop_postgres(url: &str) {
    use sqlx::Connection;
    let name = url.rsplit('/').next().expect("database name");
    let mut conn = sqlx::PgConnection::connect(&postgres_admin_url())
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&mut conn)
    .await
    .unwrap();
}
