//! The integration tests: one binary, a module per area, all starting from
//! [`helpers::TestApp`]. A new area is a new module here.

// A test reads as one scenario from start to end; the line bound is for the product's code.
#![allow(clippy::too_many_lines)]

/// `name_on_sqlite` and `name_on_postgres` tests running `name(backend)`; the PostgreSQL
/// one is ignored unless the `test-postgres` feature is on (scripts/test.sh).
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Sqlite).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                #[cfg_attr(
                    not(feature = "test-postgres"),
                    ignore = "needs PostgreSQL: scripts/test.sh sets it up"
                )]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Postgres).await;
                }
            )*
        }
    };
}

mod adding_a_game;
mod architecture_doc;
mod cli;
mod client_ts;
mod collections;
mod copy_store;
mod dashboard;
mod deploy_files;
mod designers;
mod docker_context;
mod docs_links;
mod helpers;
mod http;
mod integrity;
mod next;
mod ops;
mod play;
mod proxy_cache;
mod reliability;
mod security;
mod settings_docs;
mod stats_rollups;
