use clap::Parser;
use levelforge::commands::{
    bench, bench_stats, calibrate, copy_store, generate, healthcheck, keys, pregen, simulate,
    stats, verify,
};
use levelforge::config::{BenchCommand, Cli, Command};
use levelforge::{http, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Cli::parse();
    match args.command {
        None => http::serve::run(args.serve).await,
        Some(Command::Serve(serve_args)) => http::serve::run(serve_args).await,
        Some(Command::Generate(a)) => generate::run(&a),
        Some(Command::Verify(a)) => verify::run(&a),
        Some(Command::Pregen(a)) => {
            telemetry::init_logging(levelforge::config::LogFormat::Text);
            pregen::run(&a).await
        }
        Some(Command::Healthcheck(a)) => healthcheck::run(&a).await,
        Some(Command::Bench(a)) => match &a.command {
            Some(BenchCommand::Stats(stats)) => bench_stats::run(stats).await,
            None => bench::run(&a),
        },
        Some(Command::Simulate(a)) => simulate::run(&a),
        Some(Command::Calibrate(a)) => calibrate::run(&a),
        Some(Command::Stats(a)) => stats::run(&a).await,
        Some(Command::Keys(a)) => keys::run(&a).await,
        Some(Command::CopyStore(a)) => copy_store::run(&a).await,
    }
}
