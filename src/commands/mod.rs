//! The subcommands other than `serve` (which is [`crate::http::serve`]), one file each.

use anyhow::Context;
use levelforge_games::{Difficulty, Game, registry};

pub mod bench;
pub mod bench_stats;
pub mod calibrate;
pub mod copy_store;
pub mod generate;
pub mod healthcheck;
pub mod keys;
pub mod pregen;
pub mod simulate;
pub mod stats;
pub mod verify;

pub fn find_game(name: &str) -> anyhow::Result<&'static dyn Game> {
    registry::find(name).with_context(|| {
        format!(
            "unknown game `{name}`: the games are {}",
            registry::names().join(", ")
        )
    })
}

pub fn parse_difficulty(text: &str) -> anyhow::Result<Difficulty> {
    text.parse().map_err(anyhow::Error::msg)
}
