//! The integration tests: one binary, a module per area, all starting from
//! [`helpers::TestApp`]. A new area is a new module here.

mod adding_a_game;
mod cli;
mod client_ts;
mod dashboard;
mod deploy_files;
mod designers;
mod docker_context;
mod docs_links;
mod helpers;
mod http;
mod ops;
mod play;
mod proxy_cache;
mod reliability;
mod stats_rollups;
