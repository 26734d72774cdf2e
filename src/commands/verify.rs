//! `levelforge verify`.

use std::io::Read;

use anyhow::{Context, bail};
use levelforge_games::{GameError, Limits, Stop};
use serde_json::Value;

use super::find_game;
use crate::config::VerifyArgs;

/// `levelforge verify FILE`: prints the solver's report, or the rule the level breaks
/// (exit status 1).
pub fn run(args: &VerifyArgs) -> anyhow::Result<()> {
    let mut text = String::new();
    if args.file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("reading {}", args.file.display()))?;
    }
    let level: Value = serde_json::from_str(&text).context("the file is not JSON")?;
    let game = find_game(game_of(args, &level))?;
    let stop = Stop::never();
    match game.verify(
        &level,
        &Limits {
            max_states: args.verify_budget.verify_max_states,
            stop: &stop,
        },
    ) {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
        Err(GameError::Rule(rule)) => bail!("invalid level: {} (rule {})", rule.message, rule.rule),
        Err(GameError::Malformed(message)) => bail!("malformed level: {message}"),
        Err(other) => bail!("{other}"),
    }
}

/// The game a level is verified as: `--game`, else the file's `game` field, else
/// DEFAULT_GAME.
fn game_of<'a>(args: &'a VerifyArgs, level: &'a Value) -> &'a str {
    let named = args.game.as_deref();
    args.default_game
        .or(named.or_else(|| level.get("game").and_then(Value::as_str)))
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use serde_json::json;

    use super::*;
    use crate::config::{Cli, Command};

    fn verify_args(argv: &[&str]) -> VerifyArgs {
        let argv = ["levelforge", "verify", "level.json"].iter().chain(argv);
        match Cli::try_parse_from(argv).unwrap().command {
            Some(Command::Verify(args)) => args,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn verify_takes_the_flag_then_the_file_then_the_default_game() {
        let named = json!({"game": "hashi"});
        let unnamed = json!({"width": 3});
        let skiddy_default = verify_args(&["--default-game", "skiddy"]);
        assert_eq!(game_of(&skiddy_default, &unnamed), "skiddy");
        assert_eq!(game_of(&skiddy_default, &named), "hashi");
        let flagged = verify_args(&["--game", "hopper", "--default-game", "skiddy"]);
        assert_eq!(game_of(&flagged, &named), "hopper");
    }
}
