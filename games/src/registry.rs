//! The games the service knows. Adding a game (start from a copy of `src/template/`):
//! 1. its folder `src/<game>/` with the `Puzzle` impl, unit tests, and a README.md giving
//!    the exact rules, the level format, the metrics and the tier table; its `play.rs`
//!    plays a level one move at a time for the simulated players (`Puzzle::Play`, which
//!    the compiler asks for; `tests/bots.rs` checks its plays against the replay);
//! 2. its `pub mod` line in lib.rs and one line in `GAMES` below;
//! 3. its golden catalog: `LEVELFORGE_BLESS=1 cargo test -p levelforge-games --test catalog`
//!    writes `tests/golden/<game>.jsonl`; commit it;
//! 4. its schemas in openapi.yaml (level, metrics, moves, outcome, rule ids, all derived
//!    from its types): `LEVELFORGE_UPDATE_OPENAPI=1 cargo test --lib contract` at the
//!    repository root rewrites the generated block; commit it;
//! 5. its predicted-difficulty model: `levelforge calibrate --game <game> --write games/src`
//!    rewrites its `prior.json` (the template's predicts 1500 for every level); commit it;
//! 6. its row in docs/difficulty.md: `levelforge simulate --game <game>`'s figures.
//!
//! The catalog, fuzz targets and `levelforge bench` pick a registered game up by
//! themselves. Tests enforce the README, the golden file and the row in
//! docs/difficulty.md (`tests/api/adding_a_game.rs` at the repository root), the schemas (`src/http/openapi.rs`) and the game's list of rule ids
//! (`contract.rs` here).

use crate::game::{Adapter, Game};

static GAMES: &[&dyn Game] = &[
    &Adapter::<crate::fruit::Fruit>::NEW,
    &Adapter::<crate::skiddy::Skiddy>::NEW,
    &Adapter::<crate::hashi::Hashi>::NEW,
    &Adapter::<crate::tetropica::Tetropica>::NEW,
    &Adapter::<crate::hopper::Hopper>::NEW,
];

/// Every game, in a fixed order.
pub fn all() -> &'static [&'static dyn Game] {
    GAMES
}

/// The game called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static dyn Game> {
    GAMES.iter().copied().find(|g| g.name() == name)
}

/// The names of every game, for error messages.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|g| g.name()).collect()
}
