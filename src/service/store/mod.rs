//! The service's store: [`Store`] (crate `levelforge-store`), opened on the backend its
//! URL names. Each backend is a crate of its own with its own SQL, checked at compile
//! time: `postgres://` opens `levelforge-store-postgres`, `sqlite:` opens
//! `levelforge-store-sqlite`.

mod breaker;

use std::sync::Arc;
use std::time::Duration;

pub use breaker::Guarded;
pub use levelforge_store::*;
use levelforge_store_postgres::PgStore;
use levelforge_store_sqlite::SqliteStore;

/// How long a request waits for a database connection before it is told the database is
/// unavailable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// The database a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

impl Backend {
    pub fn of_url(url: &str) -> Backend {
        if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        }
    }
}

/// The TCP address the database of a URL listens on; `None` for SQLite (and sockets).
pub fn tcp_address(url: &str) -> Option<(String, u16)> {
    match Backend::of_url(url) {
        Backend::Postgres => levelforge_store_postgres::tcp_address(url),
        Backend::Sqlite => None,
    }
}

/// Opens the store a URL names and applies its migrations. A SQLite file is made when
/// missing.
pub async fn connect(url: &str, max_connections: u32) -> Result<Arc<dyn Store>, StoreError> {
    let store: Arc<dyn Store> = match Backend::of_url(url) {
        Backend::Postgres => {
            Arc::new(PgStore::connect(url, max_connections, ACQUIRE_TIMEOUT).await?)
        }
        Backend::Sqlite => {
            Arc::new(SqliteStore::connect(url, max_connections, ACQUIRE_TIMEOUT).await?)
        }
    };
    Ok(store)
}

/// Connects, retrying for a while: in a container the database may still be starting.
pub async fn connect_with_retry(
    url: &str,
    max_connections: u32,
) -> Result<Arc<dyn Store>, StoreError> {
    let mut delay = Duration::from_millis(250);
    let mut tries = 0;
    loop {
        match connect(url, max_connections).await {
            Ok(store) => return Ok(store),
            Err(StoreError::Unavailable(error)) if tries < 20 => {
                tries += 1;
                tracing::warn!(%error, tries, "database not reachable yet; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(error) => return Err(error),
        }
    }
}
