//! `levelforge bench stats`: the designer routes at scale. Fills an empty database with
//! synthetic levels and plays by bulk SQL, builds the rollups the way
//! `levelforge stats --recompute` does, then serves it on 127.0.0.1 and times `/stats`,
//! `/stats?difficulty=hard`, the CSV, a browse page and a player's next level over HTTP;
//! last, the write path:
//! plays stored per second with and without rollup upkeep. See docs/stats.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use levelforge_games::{Difficulty, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::{BenchStatsArgs, Cli, Command};
use crate::service::credentials::Role;
use crate::service::store::{self, LevelKey, NewPlay, Store};

/// Requests per route; the first few warm caches and are not counted.
const WARMUP: usize = 3;
/// Concurrent writers in the write-path measurement, and how long each round lasts.
const WRITERS: usize = 8;
const WRITE_ROUND: Duration = Duration::from_secs(6);

pub async fn run(args: &BenchStatsArgs) -> anyhow::Result<()> {
    let url = args.database_url.as_str();
    let sqlite = store::Backend::of_url(url) == store::Backend::Sqlite;
    println!(
        "levelforge bench stats: {} levels, {} plays on {}",
        args.levels,
        args.plays,
        if sqlite { "SQLite" } else { "PostgreSQL" }
    );
    println!("{}", crate::commands::bench::machine());
    println!(
        "load average at start: {}",
        crate::commands::bench::load_average()
    );
    let store = store::connect_with_retry(url, 16).await?;
    let existing = store.level_count().await?;
    if existing > 0 && !args.reuse {
        bail!("the database already holds {existing} levels: give an empty one, or --reuse it");
    }
    if existing == 0 {
        let started = Instant::now();
        store.fill_synthetic(args.levels, args.plays).await?;
        println!("filled in {:.1} s", started.elapsed().as_secs_f64());
        let started = Instant::now();
        let differences = store.rebuild_rollups().await?;
        println!(
            "rollups built from the raw rows in {:.1} s ({} rows differed from the empty tables)",
            started.elapsed().as_secs_f64(),
            differences.len()
        );
    } else {
        println!("reusing the {existing} levels stored by an earlier run");
    }
    if !args.writes_only {
        read_routes(store.as_ref(), url, args.requests).await?;
    }
    write_path(&store, args.levels, args.write_rounds, Compared::Rollups).await?;
    write_path(&store, args.levels, args.write_rounds, Compared::TokenCheck).await?;
    println!(
        "load average at end: {}",
        crate::commands::bench::load_average()
    );
    Ok(())
}

/// Serves the database on a random local port and times each route, as a designer: with
/// a key made for the run (expiring in a day) and revoked at its end.
async fn read_routes(store: &dyn Store, url: &str, requests: usize) -> anyhow::Result<()> {
    let name = format!("bench-stats-{}", crate::service::credentials::now());
    let key = crate::service::credentials::new_key(store, Role::Designer, &name, Some(1)).await?;
    let argv = [
        "levelforge",
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--database-url",
        url,
        "--http-request-timeout-ms",
        "120000",
    ];
    let Some(Command::Serve(serve_args)) = <Cli as clap::Parser>::try_parse_from(argv)?.command
    else {
        unreachable!("argv names serve")
    };
    let state = crate::http::state::AppState::new(&serve_args).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(crate::http::serve::serve(listener, state, async {
        let _ = stopped.await;
    }));
    println!();
    println!(
        "{:<48} {:>6} {:>9} {:>9} {:>9}",
        "route", "runs", "p50 ms", "p95 ms", "max ms"
    );
    for path in [
        "/stats",
        "/stats?difficulty=hard",
        "/stats?format=csv",
        "/levels?game=fruit&difficulty=hard&par_min=9&limit=50",
    ] {
        time_route(address, path, &key.token, requests).await?;
    }
    // A player's next level: each request also records the level as served to them, so
    // the player is erased (and its served levels with it) at the end.
    let player =
        crate::service::credentials::NewSecret::generate(crate::service::credentials::Kind::Player);
    store
        .create_player(&player.id, &player.hash, crate::service::credentials::now())
        .await?;
    time_route(
        address,
        "/players/me/next?game=fruit",
        &player.token,
        requests,
    )
    .await?;
    store.erase_player(&player.id).await?;
    let _ = stop.send(());
    server.await??;
    store
        .revoke_key(&name, crate::service::credentials::now())
        .await?;
    Ok(())
}

/// Times `requests` GETs of `path` after [`WARMUP`] ones and prints a row of the table.
async fn time_route(
    address: std::net::SocketAddr,
    path: &str,
    token: &str,
    requests: usize,
) -> anyhow::Result<()> {
    let mut times = Vec::with_capacity(requests);
    for run in 0..WARMUP + requests {
        let started = Instant::now();
        let status = get(address, path, token).await?;
        ensure!(status == 200, "{path}: HTTP {status}");
        if run >= WARMUP {
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{:<48} {:>6} {:>9.1} {:>9.1} {:>9.1}",
        path,
        times.len(),
        crate::commands::bench::nearest_rank(&times, 0.5),
        crate::commands::bench::nearest_rank(&times, 0.95),
        times.last().copied().unwrap_or(0.0)
    );
    Ok(())
}

/// A plain HTTP/1.1 GET with a bearer token; returns the status after reading the whole
/// answer.
async fn get(address: std::net::SocketAddr, path: &str, token: &str) -> anyhow::Result<u16> {
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    stream
        .write_all(
            format!(
                "GET {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n\
                 Connection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await?;
    let status = answer
        .get(9..12)
        .and_then(|code| std::str::from_utf8(code).ok())
        .and_then(|code| code.parse().ok())
        .context("not an HTTP answer")?;
    Ok(status)
}

/// What a write-path measurement turns on in every other round.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compared {
    /// Rollup upkeep (rounds without it skip the rollups).
    Rollups,
    /// Resolving the player's token before each play, as the play route does (rounds
    /// without it name the player directly), rollups on in both.
    TokenCheck,
}

impl Compared {
    fn labels(self) -> [&'static str; 2] {
        match self {
            Compared::Rollups => ["without rollups", "with rollups"],
            Compared::TokenCheck => ["without token check", "with token check"],
        }
    }
}

/// Plays stored per second by [`WRITERS`] concurrent writers through the store, with and
/// without `compared`, in alternating rounds: `rounds` with, each between two without.
/// Prints each round with the load average, the median and range of each side, and the
/// median of each round with against the mean of its two neighbours (which cancels most
/// of a drift in the machine's load).
async fn write_path(
    store: &Arc<dyn Store>,
    levels: u64,
    rounds: u64,
    compared: Compared,
) -> anyhow::Result<()> {
    let bare = store.without_rollups();
    let auth = crate::service::credentials::Authenticator::new(store.clone());
    let mut rates = Vec::new();
    println!();
    for round in 0..2 * rounds.max(1) + 1 {
        let with = round % 2 == 1;
        let target = if with || compared == Compared::TokenCheck {
            store
        } else {
            &bare
        };
        let check = (with && compared == Compared::TokenCheck).then(|| auth.clone());
        let rate = plays_per_second(target, check, levels, round).await?;
        println!(
            "write round {round:>2} {:<20} {rate:>7.0} plays/s  load {}",
            compared.labels()[usize::from(with)],
            crate::commands::bench::load_average()
        );
        rates.push(rate);
    }
    print_summary(&rates, compared);
    if compared == Compared::Rollups {
        println!(
            "(rounds without rollups leave them behind the raw rows: `levelforge stats --recompute` rebuilds)"
        );
    }
    Ok(())
}

/// The medians and ranges of both sides of the rounds, and of each round with against
/// its two neighbours.
fn print_summary(rates: &[f64], compared: Compared) {
    let sorted = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v
    };
    let side = |parity: usize| sorted(rates.iter().skip(parity).step_by(2).copied().collect());
    let (without, with) = (side(0), side(1));
    let paired = sorted(
        rates
            .windows(3)
            .step_by(2)
            .map(|w| w[1] / ((w[0] + w[2]) / 2.0))
            .collect(),
    );
    let median = |v: &[f64]| crate::commands::bench::nearest_rank(v, 0.5);
    let range = |v: &[f64]| format!("{:.0}–{:.0}", v[0], v[v.len() - 1]);
    let [off, on] = compared.labels();
    println!(
        "write path ({WRITERS} writers, rated plays through the store, {} s rounds): \
         {off} median {:.0} plays/s ({} rounds, range {}), {on} median \
         {:.0} ({} rounds, range {}): {:+.1} %; paired with its neighbours, median {:+.1} % \
         (range {:+.1} to {:+.1} %)",
        WRITE_ROUND.as_secs(),
        median(&without),
        without.len(),
        range(&without),
        median(&with),
        with.len(),
        range(&with),
        (median(&with) / median(&without) - 1.0) * 100.0,
        (median(&paired) - 1.0) * 100.0,
        (paired[0] - 1.0) * 100.0,
        (paired[paired.len() - 1] - 1.0) * 100.0,
    );
}

/// Plays per second in one round. Each writer plays as a player of its own, made for the
/// round, on levels it has not played: every play is a rated first play. With `check`, each
/// play first resolves the player's token, as `POST .../plays` does.
async fn plays_per_second(
    store: &Arc<dyn Store>,
    check: Option<std::sync::Arc<crate::service::credentials::Authenticator>>,
    levels: u64,
    round: u64,
) -> anyhow::Result<f64> {
    use crate::service::credentials::{Kind, NewSecret};
    let mut players = Vec::new();
    for _ in 0..WRITERS {
        let player = NewSecret::generate(Kind::Player);
        store
            .create_player(&player.id, &player.hash, crate::service::credentials::now())
            .await?;
        players.push(player);
    }
    let deadline = Instant::now() + WRITE_ROUND;
    let mut writers = tokio::task::JoinSet::new();
    for (writer, player) in players.into_iter().enumerate() {
        let store = store.clone();
        // Shared by the writers, as by a server's requests.
        let check = check.clone();
        let writer = writer as u64;
        writers.spawn(async move {
            let writer = Writer {
                store,
                check,
                player,
                writer,
            };
            writer.write_until(deadline, round, levels).await
        });
    }
    let mut total = 0;
    while let Some(result) = writers.join_next().await {
        total += result??;
    }
    Ok(total as f64 / WRITE_ROUND.as_secs_f64())
}

/// One writer of a write round: a player of its own, storing plays through the store.
struct Writer {
    store: Arc<dyn Store>,
    check: Option<Arc<crate::service::credentials::Authenticator>>,
    player: crate::service::credentials::NewSecret,
    writer: u64,
}

impl Writer {
    /// Stores plays until `deadline`; how many.
    async fn write_until(&self, deadline: Instant, round: u64, levels: u64) -> anyhow::Result<u64> {
        let mut stored = 0u64;
        while Instant::now() < deadline {
            let n = stored * WRITERS as u64 + self.writer;
            let seed = 1 + (n * 7_919 + round * 104_729) % levels;
            let client = self.client().await?;
            self.store
                .insert_play(&bench_play(n, seed, &client))
                .await?;
            stored += 1;
        }
        Ok(stored)
    }

    /// The player a play is stored for: resolved from its token first with a check, as
    /// `POST .../plays` does.
    async fn client(&self) -> anyhow::Result<String> {
        use crate::service::credentials::{Presented, Principal};
        let Some(auth) = &self.check else {
            return Ok(self.player.id.clone());
        };
        let token = Presented::parse(&self.player.token).context("a token")?;
        match auth.resolve(&token).await? {
            Some(Principal::Player { id }) => Ok(id),
            _ => bail!("the bench player's token did not resolve"),
        }
    }
}

/// The `n`-th play of a round, of `seed`, by `client`.
fn bench_play(n: u64, seed: u64, client: &str) -> NewPlay<'_> {
    NewPlay {
        key: LevelKey {
            game: "fruit",
            difficulty: Difficulty::ALL[(seed % 4) as usize],
            seed,
        },
        solved_claimed: true,
        status: if n.is_multiple_of(3) {
            Status::Lost
        } else {
            Status::Won
        },
        moves: "",
        moves_used: 10,
        // Scattered, not rising with n: concurrent plays would otherwise all land in one
        // time bucket, a hot row real players' independent times do not make.
        time_ms: Some(1_000 + n.wrapping_mul(2_654_435_761) % 60_000),
        client: Some(client),
        idempotency: None,
    }
}
