//! `levelforge pregen`.

use std::time::Duration;

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};

use super::{find_game, parse_difficulty};
use crate::config::{PregenArgs, parse_seed_range};
use crate::service::levels::LevelService;
use crate::service::store::{self, LevelKey};

/// `levelforge pregen`: generates and stores a seed range, several at a time.
pub async fn run(args: &PregenArgs) -> anyhow::Result<()> {
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
