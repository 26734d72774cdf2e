use clap::Parser;
use levelforge::config::{Cli, Command, ServeArgs};
use levelforge::{cli, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Cli::parse();
    match args.command {
        None => serve(args.serve).await,
        Some(Command::Serve(serve_args)) => serve(serve_args).await,
        Some(Command::Generate(a)) => cli::generate(&a),
        Some(Command::Verify(a)) => cli::verify(&a),
        Some(Command::Pregen(a)) => {
            telemetry::init_logging(levelforge::config::LogFormat::Text);
            cli::pregen(&a).await
        }
        Some(Command::Healthcheck(a)) => cli::healthcheck(&a).await,
        Some(Command::Bench(a)) if a.stats => levelforge::stats_bench::run(&a).await,
        Some(Command::Bench(a)) => levelforge::bench::run(&a),
        Some(Command::Simulate(a)) => levelforge::simulate::run(&a),
        Some(Command::Calibrate(a)) => levelforge::calibrate::run(&a),
        Some(Command::Stats(a)) => cli::stats(&a).await,
        Some(Command::Keys(a)) => cli::keys(&a).await,
        Some(Command::CopyStore(a)) => levelforge::copy_store::run(&a).await,
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    telemetry::init_logging(args.log.log_format);
    args.allocator.apply()?;
    let state = levelforge::app_state(&args).await?;
    let listener = tokio::net::TcpListener::bind(args.bind).await?;
    let admin_bind = args.admin.admin_bind;
    let admin = tokio::net::TcpListener::bind(admin_bind)
        .await
        .map_err(|e| anyhow::anyhow!("ADMIN_BIND {admin_bind}: {e}"))?;
    levelforge::first_run_key(&state, args.access.first_run_key, args.bind).await?;
    tracing::info!(bind = %args.bind, admin_bind = %admin_bind, default_game = state.default_game.name(), "levelforge listening");
    let (stop, stopped) = tokio::sync::watch::channel(());
    let mut admin_stopped = stopped.clone();
    let admin = tokio::spawn(levelforge::serve_admin(admin, state.clone(), async move {
        let _ = admin_stopped.changed().await;
    }));
    levelforge::serve(listener, state, async move {
        levelforge::shutdown_signal().await;
        let _ = stop.send(());
    })
    .await?;
    admin.await?
}
