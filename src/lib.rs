//! levelforge: seeded puzzle levels, proven by solvers, stored, and served over HTTP.
//!
//! The house has three floors, each standing on the ones below and never reaching up:
//!
//! - [`commands`]: every subcommand but `serve` (`generate`, `verify`, `pregen`,
//!   `stats`, `keys`, `healthcheck`, `bench`, `bench stats`, `simulate`, `calibrate`,
//!   `copy-store`), one file per command. They call the service (and `bench stats` the
//!   HTTP server it measures), never the crate root.
//! - [`http`]: the HTTP edge. [`http::serve`] runs `levelforge serve` (the app state,
//!   both listeners, shutdown); [`http::server`] accepts connections; [`http::app`]
//!   answers each request: the checks of [`http::host`], then warm immutable answers
//!   ([`http::warm`]), then [`http::router`], which mounts the handlers of
//!   [`http::routes`] (one area of the API to a file; each extracts, calls one service
//!   function and maps its outcome) inside the layers ([`http::overload`],
//!   [`http::cors`], [`http::rate_limit`]). [`http::params`] and [`http::auth`] are the
//!   extractors, [`http::problem`] the error answers.
//! - [`service`]: everything that knows no HTTP: levels (cache → store → bounded
//!   generation), plays, the next level, collections, credentials, rate limiters, charts,
//!   and the store (crates `levelforge-store*`, under the `store/` folder).
//!
//! Beside them: [`config`], the settings (each group builds its runtime object, so it
//! stands on the service), and [`telemetry`], the logs. Under everything:
//! [`compression`] (bytes in every content coding, which the level cache holds and the
//! routes send), [`metrics`] and [`allocator`]. The games are the `levelforge-games`
//! crate (`games/`): pure and synchronous.

pub mod allocator;
pub mod commands;
pub mod compression;
pub mod config;
pub mod http;
pub mod metrics;
pub mod service;
pub mod telemetry;
