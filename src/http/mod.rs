//! The HTTP edge (openapi.yaml, docs/http.md): the server, the router and its layers, and
//! the handlers in [`routes`], which translate between HTTP and the service; none knows a
//! game's rules.

pub mod app;
pub mod auth;
pub mod cors;
pub mod head;
pub mod host;
// Test support only: the check of openapi.yaml's generated schemas.
#[cfg(test)]
#[allow(clippy::too_many_lines)]
mod openapi;
pub mod overload;
pub mod params;
pub mod problem;
pub mod rate_limit;
pub mod router;
pub mod routes;
pub mod serve;
pub mod server;
pub mod session;
pub mod state;
pub mod warm;
pub mod warm_connection;

pub use app::App;
pub use state::AppState;
