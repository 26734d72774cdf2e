//! Every game's editor palette (`Puzzle::PALETTE`), the template included: it is not
//! empty, names each character once with a name of its own, and the grid accepts every
//! piece: placed on any cell of the game's bench level, the level is either valid or
//! breaks one of the game's own rules, never the grid's character rule.

use std::collections::HashSet;

use levelforge_games::game::Adapter;
use levelforge_games::template::Template;
use levelforge_games::{Game, GameError, registry};
use serde_json::{Value, json};

fn games() -> Vec<&'static dyn Game> {
    static TEMPLATE: Adapter<Template> = Adapter::<Template>::NEW;
    let mut games = registry::all().to_vec();
    games.push(&TEMPLATE);
    games
}

fn with_cell(level: &Value, x: usize, y: usize, piece: char) -> Value {
    let mut edited = level.clone();
    let row = edited["grid"][y].as_str().unwrap();
    let row: String = row
        .chars()
        .enumerate()
        .map(|(i, c)| if i == x { piece } else { c })
        .collect();
    edited["grid"][y] = json!(row);
    edited
}

#[test]
fn palettes_name_each_piece_once() {
    for game in games() {
        let palette = game.palette();
        assert!(
            palette.len() >= 2,
            "{}: a blank and a piece at least",
            game.name()
        );
        let chars: HashSet<char> = palette.iter().map(|p| p.char).collect();
        let names: HashSet<&str> = palette.iter().map(|p| p.name).collect();
        assert_eq!(
            chars.len(),
            palette.len(),
            "{}: a character twice",
            game.name()
        );
        assert_eq!(names.len(), palette.len(), "{}: a name twice", game.name());
    }
}

#[test]
fn the_grid_accepts_every_piece_on_every_cell() {
    for game in games() {
        let level = game.bench_level();
        game.preview_svg(&level, false)
            .expect("the bench level is valid");
        let rows = level["grid"].as_array().unwrap().len();
        let columns = level["grid"][0].as_str().unwrap().chars().count();
        for piece in game.palette() {
            for (x, y) in (0..rows).flat_map(|y| (0..columns).map(move |x| (x, y))) {
                match game.preview_svg(&with_cell(&level, x, y, piece.char), false) {
                    Ok(_) => {}
                    Err(GameError::Rule(broken)) => assert!(
                        !broken.rule.starts_with("grid."),
                        "{} `{}` at ({x},{y}): {broken}",
                        game.name(),
                        piece.char
                    ),
                    Err(other) => panic!("{} `{}`: {other}", game.name(), piece.char),
                }
            }
        }
    }
}
