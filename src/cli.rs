//! The subcommands other than `serve`.

use std::io::Read;
use std::time::Duration;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use levelforge_games::{Difficulty, Game, GameError, Limits, Stop, registry};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::auth::{Kind, NewSecret, key_state, now};
use crate::config::{
    GenerateArgs, HealthcheckArgs, KeyRole, KeysCommand, PregenArgs, StatsArgs, VerifyArgs,
    parse_seed_range,
};
use crate::levels::LevelService;
use crate::store::{self, LevelKey};

fn find_game(name: &str) -> anyhow::Result<&'static dyn Game> {
    registry::find(name).with_context(|| {
        format!(
            "unknown game `{name}`: the games are {}",
            registry::names().join(", ")
        )
    })
}

fn parse_difficulty(text: &str) -> anyhow::Result<Difficulty> {
    text.parse().map_err(anyhow::Error::msg)
}

/// `levelforge generate`: prints the level JSON (no database involved).
pub fn generate(args: &GenerateArgs) -> anyhow::Result<()> {
    let game = find_game(args.default_game.or(args.game.as_deref()))?;
    let difficulty = parse_difficulty(&args.difficulty)?;
    let generated = game.generate(difficulty, args.seed, &Stop::never())?;
    println!("{}", generated.json);
    Ok(())
}

/// `levelforge verify FILE`: prints the solver's report, or the rule the level breaks
/// (exit status 1).
pub fn verify(args: &VerifyArgs) -> anyhow::Result<()> {
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

/// `levelforge pregen`: generates and stores a seed range, several at a time.
pub async fn pregen(args: &PregenArgs) -> anyhow::Result<()> {
    let game = find_game(args.default_game.or(args.game.as_deref()))?;
    let difficulty = parse_difficulty(&args.difficulty)?;
    let seeds = parse_seed_range(&args.seeds).map_err(anyhow::Error::msg)?;
    let store = store::connect_with_retry(
        &args.database.database_url,
        args.database.database_max_connections,
    )
    .await?;
    let mut bounds = args.generation.bounds();
    // A batch job waits for slots instead of shedding load.
    bounds.queue_wait = Duration::from_secs(3600);
    let concurrency = bounds.concurrency;
    let service = LevelService::new(store, bounds, 0);
    let total = seeds.end() - seeds.start() + 1;
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} levels, {per_sec}, eta {eta}")
            .expect("template"),
    );
    let mut tasks = tokio::task::JoinSet::new();
    let mut failures = 0u64;
    for seed in seeds {
        if tasks.len() >= concurrency * 2 {
            failures += u64::from(
                tasks
                    .join_next()
                    .await
                    .is_some_and(|r| !matches!(r, Ok(Ok(_)))),
            );
            bar.inc(1);
        }
        let service = service.clone();
        let key = LevelKey {
            game: game.name(),
            difficulty,
            seed,
        };
        tasks.spawn(async move { service.get(game, key).await });
    }
    while let Some(result) = tasks.join_next().await {
        failures += u64::from(!matches!(result, Ok(Ok(_))));
        bar.inc(1);
    }
    bar.finish();
    if failures > 0 {
        bail!("{failures} of {total} levels failed");
    }
    Ok(())
}

/// `levelforge stats [--recompute]`: compares the statistics rollups with a recomputation
/// from the stored rows (and with `--recompute` replaces them by it); exit status 1 when
/// they differed.
pub async fn stats(args: &StatsArgs) -> anyhow::Result<()> {
    let store = store::connect_with_retry(
        &args.database.database_url,
        args.database.database_max_connections,
    )
    .await?;
    let started = std::time::Instant::now();
    let differences = if args.recompute {
        store.rebuild_rollups().await?
    } else {
        store.check_rollups().await?
    };
    for difference in &differences {
        println!("{difference}");
    }
    let verb = if args.recompute { "rebuilt" } else { "checked" };
    println!(
        "rollups {verb} in {:.1} s: {} difference(s) from the stored rows",
        started.elapsed().as_secs_f64(),
        differences.len()
    );
    if differences.is_empty() || args.recompute {
        Ok(())
    } else {
        bail!(
            "the rollups differ from the stored rows; `levelforge stats --recompute` rebuilds them"
        )
    }
}

/// `levelforge keys create|list|revoke`.
pub async fn keys(command: &KeysCommand) -> anyhow::Result<()> {
    let database = match command {
        KeysCommand::Create(a) => &a.database,
        KeysCommand::List(a) => &a.database,
        KeysCommand::Revoke(a) => &a.database,
    };
    let store = store::connect(&database.database_url, 2).await?;
    match command {
        KeysCommand::Create(args) => {
            let key = new_key(store.as_ref(), args.role, &args.name, args.expires_days).await?;
            println!(
                "created {} key `{}` (id {}); it is shown only now, store it as a secret:",
                role_name(args.role),
                args.name,
                key.id
            );
            println!("{}", key.token);
        }
        KeysCommand::List(_) => print_keys(&store.keys().await?),
        KeysCommand::Revoke(args) => match store.revoke_key(&args.name_or_id, now()).await? {
            Some(key) => println!(
                "revoked key `{}` (id {}); every replica refuses it within {} s",
                key.name,
                key.id,
                crate::auth::CREDENTIAL_CACHE.as_secs()
            ),
            None => bail!("no live key is named or numbered `{}`", args.name_or_id),
        },
    }
    Ok(())
}

fn role_name(role: KeyRole) -> &'static str {
    match role {
        KeyRole::Designer => "designer",
        KeyRole::Admin => "admin",
    }
}

/// Makes and stores a key; the token is in the answer and nowhere else.
pub async fn new_key(
    store: &dyn store::Store,
    role: KeyRole,
    name: &str,
    expires_days: Option<u32>,
) -> anyhow::Result<NewSecret> {
    if name.trim().is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        bail!("a key's name is 1 to 100 characters of text");
    }
    let key = NewSecret::generate(Kind::Key);
    let created_at = now();
    store
        .create_key(&store::NewKey {
            id: &key.id,
            name,
            role: role_name(role),
            secret_hash: &key.hash,
            created_at,
            expires_at: expires_days.map(|days| created_at + i64::from(days) * 86_400),
        })
        .await?;
    Ok(key)
}

fn print_keys(keys: &[store::KeyRecord]) {
    let time = |t: Option<i64>| {
        t.and_then(|t| jiff::Timestamp::from_second(t).ok())
            .map_or("-".to_string(), |t| {
                t.strftime("%Y-%m-%d %H:%M").to_string()
            })
    };
    println!(
        "{:<10} {:<20} {:<9} {:<14} {:<17} {:<17} {:<17} state",
        "id", "name", "role", "prefix", "created", "expires", "last used"
    );
    let now = now();
    for key in keys {
        println!(
            "{:<10} {:<20} {:<9} {:<14} {:<17} {:<17} {:<17} {}",
            key.id,
            key.name,
            key.role,
            format!("lfk_{}", key.id),
            time(Some(key.created_at)),
            time(key.expires_at),
            time(key.last_used_at),
            key_state(key, now)
        );
    }
}

/// `levelforge healthcheck`: a plain HTTP/1.1 GET of /healthz on the local port.
pub async fn healthcheck(args: &HealthcheckArgs) -> anyhow::Result<()> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], args.admin.admin_bind.port()));
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect(address).await?;
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        anyhow::Ok(answer)
    };
    let answer = tokio::time::timeout(Duration::from_secs(3), probe)
        .await
        .context("timed out")??;
    if answer.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        bail!(
            "unhealthy: {}",
            String::from_utf8_lossy(&answer[..answer.len().min(64)])
        )
    }
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
