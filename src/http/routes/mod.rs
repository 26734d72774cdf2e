//! The handlers, one area of the API to a file. Each extracts, calls one service
//! function and maps its outcome to an answer; none knows a game's rules or the store.

pub mod bench_bytes;
pub mod browse;
pub mod collections;
pub mod daily;
pub mod dashboard;
pub mod designers;
pub mod levels;
pub mod ops;
pub mod players;
pub mod plays;
pub mod session;
