//! The integration tests: one binary, a module per area, all starting from
//! [`helpers::TestApp`]. A new area is a new module here.

mod adding_a_game;
mod cli;
mod dashboard;
mod deploy_files;
mod designers;
mod docs_links;
mod helpers;
mod http;
mod ops;
