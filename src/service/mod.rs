//! Everything that knows no HTTP: what the handlers and the commands call.

pub mod collections;
pub mod credentials;
pub mod difficulty_chart;
pub mod levels;
pub mod next;
pub mod plays;
pub mod ratelimit;
pub mod store;

pub use levelforge_store::rating;
