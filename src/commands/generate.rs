//! `levelforge generate`.

use levelforge_games::Stop;

use super::{find_game, parse_difficulty};
use crate::config::GenerateArgs;

/// `levelforge generate`: prints the level JSON (no database involved).
pub fn run(args: &GenerateArgs) -> anyhow::Result<()> {
    let game = find_game(args.default_game.or(args.game.as_deref()))?;
    let difficulty = parse_difficulty(&args.difficulty)?;
    let generated = game.generate(difficulty, args.seed, &Stop::never())?;
    println!("{}", generated.json);
    Ok(())
}
