//! `levelforge stats`.

use anyhow::bail;

use crate::config::StatsArgs;
use crate::service::store;

/// `levelforge stats [--recompute]`: compares the statistics rollups with a recomputation
/// from the stored rows (and with `--recompute` replaces them by it); exit status 1 when
/// they differed.
pub async fn run(args: &StatsArgs) -> anyhow::Result<()> {
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
