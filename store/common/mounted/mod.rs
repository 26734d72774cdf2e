//! The Rust both backend crates compile, each as its own module (`#[path]`), written once
//! around queries that each crate has in its own dialect: every `query_file!` path here,
//! such as `queries/levels/browse_page.sql`, is read from the compiling crate's folder and
//! checked against its schema. The crate root names its store `Backend`, which implements
//! [`Dialect`]: everything else this code needs from the backend goes through that trait.

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

use levelforge_store_common::Dialect;

/// A transaction on the compiling backend.
pub(crate) type Tx = sqlx::Transaction<'static, <crate::Backend as Dialect>::Db>;
/// A connection on the compiling backend.
pub(crate) type Conn = <<crate::Backend as Dialect>::Db as sqlx::Database>::Connection;
