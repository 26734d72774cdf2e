//! Writes the fuzzers' seed corpus and dictionary (used by `scripts/fuzz.sh`):
//! `DIR/level_json/<game>-<tier>-<seed>.json` for every registered game, an empty
//! `DIR/moves/empty` (the unedited solutions), and `DIR/corpus/level_json.dict`.
//!
//! `cargo run -p levelforge-games --example fuzz_seeds -- fuzz`

use std::fs;
use std::path::PathBuf;

use levelforge_games::fuzzing;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz".into()));
    let levels = dir.join("corpus/level_json");
    let moves = dir.join("corpus/moves");
    fs::create_dir_all(&levels)?;
    fs::create_dir_all(&moves)?;
    let seeds = fuzzing::seed_levels();
    for (name, json) in &seeds {
        fs::write(levels.join(name), json)?;
    }
    fs::write(moves.join("empty"), "")?;
    fs::write(dir.join("corpus/level_json.dict"), fuzzing::dictionary())?;
    println!("{} level seeds under {}", seeds.len(), levels.display());
    Ok(())
}
