//! The games the service knows. Adding a game: its folder, its `mod` line in lib.rs, and
//! one line here.

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
