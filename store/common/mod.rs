//! The Rust both backend crates compile (each mounts this folder with `#[path]`), written
//! once around queries that each crate has in its own dialect: every `query_file!` path
//! here, such as `queries/levels/browse_page.sql`, is read from the compiling crate's
//! folder. Each crate names its types for this code: `Backend` (the store), `Tx` (a
//! transaction) and `Conn` (a connection), and gives `begin_write`,
//! `plays::save_ratings`, and for `copy`, `begin_snapshot` and `after_import`.

pub(crate) mod collections;
pub(crate) mod copy;
pub(crate) mod credentials;
pub(crate) mod first_play;
pub(crate) mod idempotency;
pub(crate) mod levels;
pub(crate) mod next;
pub(crate) mod operations;
pub(crate) mod rollup_reads;
pub(crate) mod stats;
