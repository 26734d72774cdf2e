//! Command line and environment. Every setting has a flag and an environment variable.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::service::levels::Bounds;
use crate::service::ratelimit::{Limiters, RateLimiter};

#[derive(Debug, Parser)]
#[command(
    name = "levelforge",
    version,
    about = "A level service for puzzle games"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// With no subcommand, levelforge serves.
    #[command(flatten)]
    pub serve: ServeArgs,
}

// Parsed once at start: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API (the default).
    Serve(ServeArgs),
    /// Generate one level and print its JSON.
    Generate(GenerateArgs),
    /// Verify a level file (the format in docs/games.md) and print the solver's report.
    Verify(VerifyArgs),
    /// Generate and store a range of seeds.
    Pregen(PregenArgs),
    /// Exit 0 when the ops listener on ADMIN_BIND answers /healthz (for container health
    /// checks).
    Healthcheck(HealthcheckArgs),
    /// Time cold generation of every game × tier and each game's solver (no server).
    Bench(BenchArgs),
    /// Simulated players of graded skill play levels of every tier; prints solve rates,
    /// the levels' measured ratings and how well they order the tiers (docs/difficulty.md).
    Simulate(SimulateArgs),
    /// Refit each game's predicted-difficulty model to the ratings simulated players
    /// measure on levels of other seeds (docs/difficulty.md).
    Calibrate(CalibrateArgs),
    /// Check the statistics rollups against the stored levels and plays.
    Stats(StatsArgs),
    /// Keys for people: create, list, revoke (docs/security.md).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Copy a whole store to another database (SQLite to PostgreSQL, or back), then
    /// rebuild the target's statistics (docs/operations.md).
    CopyStore(CopyStoreArgs),
}

#[derive(Debug, Args)]
pub struct CopyStoreArgs {
    /// The store to copy: `sqlite://FILE` or `postgres://...`. Only read (its
    /// migrations are applied first); stop the servers writing to it before.
    #[arg(long)]
    pub from: String,
    /// The store to fill, which must be empty (a SQLite file is made when missing).
    #[arg(long)]
    pub to: String,
    /// The target holds a copy of the same source that was interrupted: keep its rows,
    /// copy the missing ones.
    #[arg(long)]
    pub resume: bool,
    /// Rows written per transaction on the target.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub batch_rows: u64,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a key; it is printed once, alone on the last line, and stored only as a hash.
    Create(KeyCreateArgs),
    /// Every key: id, name, role, prefix, created, expires, last used, state.
    List(KeyStoreArgs),
    /// Revoke a live key by its name or id; every replica refuses it within seconds.
    Revoke(KeyRevokeArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum KeyRole {
    /// The designer routes: stats, browse, verify, previews of posted levels, dashboard.
    Designer,
    /// Everything a designer may do (and key management over HTTP when it comes).
    Admin,
}

impl From<KeyRole> for crate::service::credentials::Role {
    fn from(role: KeyRole) -> Self {
        match role {
            KeyRole::Designer => Self::Designer,
            KeyRole::Admin => Self::Admin,
        }
    }
}

#[derive(Debug, Args)]
pub struct KeyStoreArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Debug, Args)]
pub struct KeyCreateArgs {
    #[arg(long, value_enum)]
    pub role: KeyRole,
    /// A name for people: who or what holds the key.
    #[arg(long)]
    pub name: String,
    /// Days until the key stops working; without it, until revoked.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=36_500))]
    pub expires_days: Option<u32>,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Debug, Args)]
pub struct KeyRevokeArgs {
    /// The key's name (a live key) or its id.
    pub name_or_id: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

/// Whether the server makes a designer key when the store has no live key.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FirstRunKey {
    /// Only when standard error is a terminal (someone is there to read the sign-in link).
    Auto,
    /// Always, printing the sign-in link on standard error.
    Always,
    /// Never: designer routes refuse everyone until `levelforge keys create`.
    Never,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// `postgres://...`, or `sqlite://FILE`; unset: `sqlite://levelforge.db` in the working directory.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://levelforge.db")]
    pub database_url: String,
    /// Connections in the database pool.
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 16)]
    pub database_max_connections: u32,
}

#[derive(Debug, Clone, Args)]
pub struct GenerationArgs {
    /// Generations (and verifications) running at once; 0 = the number of CPUs.
    #[arg(long, env = "GEN_CONCURRENCY", default_value_t = 0)]
    pub gen_concurrency: usize,
    /// How long a request waits for a free generation slot before 503.
    #[arg(long, env = "GEN_QUEUE_WAIT_MS", default_value_t = 2000)]
    pub gen_queue_wait_ms: u64,
    /// Wall-clock budget of one generation or verification before 503.
    #[arg(long, env = "GEN_BUDGET_MS", default_value_t = 10_000)]
    pub gen_budget_ms: u64,
}

impl GenerationArgs {
    pub fn bounds(&self) -> Bounds {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        Bounds {
            concurrency: if self.gen_concurrency == 0 {
                cpus
            } else {
                self.gen_concurrency
            },
            queue_wait: Duration::from_millis(self.gen_queue_wait_ms),
            budget: Duration::from_millis(self.gen_budget_ms),
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "BIND", default_value = "0.0.0.0:8080")]
    pub bind: SocketAddr,
    #[command(flatten)]
    pub admin: AdminArgs,
    #[command(flatten)]
    pub default_game: DefaultGameArgs,
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub generation: GenerationArgs,
    /// Levels kept in memory in front of the database.
    #[arg(long, env = "CACHE_CAPACITY", default_value_t = 20_000)]
    pub cache_capacity: u64,
    #[command(flatten)]
    pub allocator: AllocatorArgs,
    #[command(flatten)]
    pub verify_budget: VerifyBudgetArgs,
    /// Verifications running at once, in a pool of their own beside the generation slots.
    #[arg(long, env = "VERIFY_CONCURRENCY", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub verify_concurrency: u64,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub rate_limit: RateLimitArgs,
    #[command(flatten)]
    pub log: LogArgs,
    #[command(flatten)]
    pub access: AccessArgs,
    /// Mounts `GET /bench/bytes/{size}`, a body of that size from memory through the same
    /// middleware as every route, for `scripts/bench.sh`'s side-by-side load test.
    #[arg(long, env = "BENCH_ROUTES", default_value_t = false, action = clap::ArgAction::Set)]
    pub bench_routes: bool,
}

/// Who may call what from where (docs/security.md).
#[derive(Debug, Clone, Args)]
pub struct AccessArgs {
    /// Web origins (`https://game.example`) whose pages may call the game routes, comma
    /// separated; none by default (or empty). Designer routes never answer another origin.
    #[arg(long, env = "CORS_ALLOWED_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_allowed_origins: Vec<String>,
    /// Mark the dashboard's session cookie `Secure` (set it when served over HTTPS).
    #[arg(long, env = "SESSION_COOKIE_SECURE", default_value_t = false, action = clap::ArgAction::Set)]
    pub session_cookie_secure: bool,
    /// Hours a dashboard sign-in lasts.
    #[arg(long, env = "SESSION_HOURS", default_value_t = 12,
          value_parser = clap::value_parser!(u32).range(1..=720))]
    pub session_hours: u32,
    /// With no live key in the store: make a designer key and print a sign-in link.
    #[arg(long, env = "FIRST_RUN_KEY", value_enum, default_value_t = FirstRunKey::Auto)]
    pub first_run_key: FirstRunKey,
}

/// An origin as browsers send it: scheme, host and optional port, nothing after.
fn parse_origin(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(String::new()); // `CORS_ALLOWED_ORIGINS=""`: none
    }
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| {
            format!("`{text}` is not an origin: it must start with http:// or https://")
        })?;
    let plain = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    if plain {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!(
            "`{text}` is not an origin: only scheme://host[:port], without a path or a slash"
        ))
    }
}

/// The C allocator's setting (src/allocator.rs), shared by `serve` and `bench`.
#[derive(Args, Clone, Debug)]
pub struct AllocatorArgs {
    /// Allocations of at least this many KiB get a mapping of their own, returned to the
    /// system when freed (glibc's `M_MMAP_THRESHOLD`, fixed, and `M_TRIM_THRESHOLD` at twice
    /// it; 4 MiB is also where solver tables start to ask for huge pages); 0 = glibc's
    /// adaptive thresholds, under which each arena keeps the largest tables that ran in it.
    #[arg(long, env = "MALLOC_MMAP_THRESHOLD_KB", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(0..=32_768))]
    pub malloc_mmap_threshold_kb: u64,
}

impl AllocatorArgs {
    /// Applies the setting to this process.
    pub fn apply(&self) -> anyhow::Result<()> {
        crate::allocator::set_mmap_threshold(usize::try_from(self.malloc_mmap_threshold_kb)? * 1024)
    }
}

/// The overload layers in front of every route.
#[derive(Debug, Clone, Args)]
pub struct HttpArgs {
    /// Requests handled at once, all routes together; 0 = unlimited.
    #[arg(long, env = "HTTP_MAX_IN_FLIGHT", default_value_t = 1024)]
    pub http_max_in_flight: usize,
    /// When HTTP_MAX_IN_FLIGHT requests are running: `true` answers 503 at once, `false`
    /// queues the request (until its timeout).
    #[arg(long, env = "HTTP_LOAD_SHED", default_value_t = true, action = clap::ArgAction::Set)]
    pub http_load_shed: bool,
    /// Whole-request deadline before 503; above GEN_QUEUE_WAIT_MS + GEN_BUDGET_MS so that
    /// the pipeline's own, more precise 503s come first.
    #[arg(long, env = "HTTP_REQUEST_TIMEOUT_MS", default_value_t = 15_000)]
    pub http_request_timeout_ms: u64,
    /// Time a connection has to send a complete request head (request line and headers),
    /// counted from when the server starts waiting for it; then the connection is closed.
    /// Cuts slow-header (slowloris) clients and idle kept-alive connections.
    #[arg(long, env = "HTTP_HEADER_READ_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub http_header_read_timeout_ms: u64,
    /// Time a request has to deliver its whole body, read before the request takes an
    /// in-flight slot; then 408 and the connection is closed.
    #[arg(long, env = "HTTP_BODY_READ_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub http_body_read_timeout_ms: u64,
    /// Time a response write may make no progress (a client that does not read); then the
    /// connection is closed.
    #[arg(long, env = "HTTP_WRITE_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub http_write_timeout_ms: u64,
    /// Open connections, all clients together; further ones wait in the listen backlog.
    /// 0 = unlimited.
    #[arg(long, env = "HTTP_MAX_CONNECTIONS", default_value_t = 1024)]
    pub http_max_connections: usize,
    /// Open connections from one peer address; further ones are closed at once. 0 =
    /// unlimited (set it so behind a proxy: every connection comes from the proxy).
    #[arg(long, env = "HTTP_MAX_CONNECTIONS_PER_CLIENT", default_value_t = 128)]
    pub http_max_connections_per_client: usize,
    /// Bytes a connection may buffer for one request head; a larger head gets 431.
    #[arg(long, env = "HTTP_MAX_HEADER_BYTES", default_value_t = 16_384,
          value_parser = clap::value_parser!(u64).range(8192..=1_048_576))]
    pub http_max_header_bytes: u64,
    /// Header fields one request head may hold, whatever their size; more gets 431.
    #[arg(long, env = "HTTP_MAX_HEADERS", default_value_t = HYPER_MAX_HEADERS,
          value_parser = clap::value_parser!(u64).range(16..=4096))]
    pub http_max_headers: u64,
    /// After SIGTERM: how long open connections may finish their requests before the
    /// remaining ones are closed.
    #[arg(long, env = "HTTP_SHUTDOWN_GRACE_MS", default_value_t = 20_000)]
    pub http_shutdown_grace_ms: u64,
}

/// Per-client limits on cold generation (warm levels are never limited).
#[derive(Debug, Clone, Args)]
pub struct RateLimitArgs {
    /// Cold generations one client may start per minute, sustained; 0 = no limit.
    #[arg(long, env = "RATE_LIMIT_COLD_PER_MIN", default_value_t = 600)]
    pub rate_limit_cold_per_min: u32,
    /// Cold generations one client may start at once before the per-minute rate applies.
    #[arg(long, env = "RATE_LIMIT_COLD_BURST", default_value_t = 60)]
    pub rate_limit_cold_burst: u32,
    /// `POST /verify` requests one client may make per minute, sustained; 0 = no limit.
    #[arg(long, env = "RATE_LIMIT_VERIFY_PER_MIN", default_value_t = 30)]
    pub rate_limit_verify_per_min: u32,
    /// `POST /verify` requests one client may make at once.
    #[arg(long, env = "RATE_LIMIT_VERIFY_BURST", default_value_t = 5)]
    pub rate_limit_verify_burst: u32,
    /// Plays one client may post per minute, sustained; 0 = no limit.
    #[arg(long, env = "RATE_LIMIT_PLAYS_PER_MIN", default_value_t = 120)]
    pub rate_limit_plays_per_min: u32,
    /// Plays one client may post at once.
    #[arg(long, env = "RATE_LIMIT_PLAYS_BURST", default_value_t = 30)]
    pub rate_limit_plays_burst: u32,
    /// Hints one client may ask for per minute, sustained; 0 = no limit. A player asks
    /// once per click, so the default leaves room for fast play.
    #[arg(long, env = "RATE_LIMIT_HINTS_PER_MIN", default_value_t = 300)]
    pub rate_limit_hints_per_min: u32,
    /// Hints one client may ask for at once.
    #[arg(long, env = "RATE_LIMIT_HINTS_BURST", default_value_t = 60)]
    pub rate_limit_hints_burst: u32,
    /// New players (`POST /players`) one client may make per minute; 0 = no limit. One
    /// install makes one; the limit bounds how many votes one address can muster.
    #[arg(long, env = "RATE_LIMIT_PLAYERS_PER_MIN", default_value_t = 10)]
    pub rate_limit_players_per_min: u32,
    /// New players one client may make at once.
    #[arg(long, env = "RATE_LIMIT_PLAYERS_BURST", default_value_t = 10)]
    pub rate_limit_players_burst: u32,
    /// New players one network (an IPv4 /24, an IPv6 /64) may make per minute, all its
    /// addresses together; 0 = no limit. Bounds the votes of one who holds many addresses.
    #[arg(
        long,
        env = "RATE_LIMIT_PLAYERS_PER_NETWORK_PER_MIN",
        default_value_t = 30
    )]
    pub rate_limit_players_per_network_per_min: u32,
    /// New players one network may make at once.
    #[arg(
        long,
        env = "RATE_LIMIT_PLAYERS_PER_NETWORK_BURST",
        default_value_t = 30
    )]
    pub rate_limit_players_per_network_burst: u32,
    /// Take the client from the last `X-Forwarded-For` entry, over all its header lines
    /// (only behind a proxy that appends it); otherwise the peer address.
    #[arg(long, env = "TRUST_FORWARDED", default_value_t = false, action = clap::ArgAction::Set)]
    pub trust_forwarded: bool,
}

impl RateLimitArgs {
    /// The limiter of cold generations, which the level service holds.
    pub fn cold(&self) -> Option<RateLimiter> {
        RateLimiter::new(self.rate_limit_cold_per_min, self.rate_limit_cold_burst)
    }

    /// The limiters of the routes.
    pub fn limiters(&self) -> Limiters {
        let per_client = |per_min, burst| RateLimiter::new(per_min, burst).map(Arc::new);
        Limiters {
            verify: per_client(self.rate_limit_verify_per_min, self.rate_limit_verify_burst),
            plays: per_client(self.rate_limit_plays_per_min, self.rate_limit_plays_burst),
            hints: per_client(self.rate_limit_hints_per_min, self.rate_limit_hints_burst),
            players: per_client(
                self.rate_limit_players_per_min,
                self.rate_limit_players_burst,
            ),
            players_per_network: RateLimiter::per_network(
                self.rate_limit_players_per_network_per_min,
                self.rate_limit_players_per_network_burst,
            )
            .map(Arc::new),
        }
    }
}

/// hyper's own cap on the header fields of a request, which it keeps on the stack.
pub const HYPER_MAX_HEADERS: u64 = 100;

#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// `text` or `json`; the filter comes from RUST_LOG (default `info`).
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// The game of whatever names none, for `serve` and the commands that take a game.
#[derive(Debug, Clone, Args)]
pub struct DefaultGameArgs {
    /// The game of a request without `?game=`, and of a command without `--game` (or a
    /// level file without `game`).
    #[arg(long, env = "DEFAULT_GAME", default_value = "fruit")]
    pub default_game: String,
}

impl DefaultGameArgs {
    /// `named`, else the default game.
    pub fn or<'a>(&'a self, named: Option<&'a str>) -> &'a str {
        named.unwrap_or(&self.default_game)
    }
}

/// The state budget of one verification, for `serve` (`POST /verify` and hints) and
/// `verify`: one default, so that the command gives up exactly where the server would.
#[derive(Debug, Clone, Args)]
pub struct VerifyBudgetArgs {
    /// States one verification may expand before it gives up; bounds its memory (at most
    /// 40 bytes a state in every game's analysis, so about 100 MB at the default:
    /// docs/reliability.md). Room for the write-up's largest skiddy level (1,159,415
    /// states) twice over; raise it for a deeper search.
    #[arg(
        long,
        alias = "max-states",
        env = "VERIFY_MAX_STATES",
        default_value_t = 2_500_000
    )]
    pub verify_max_states: u64,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Default: DEFAULT_GAME.
    #[arg(long)]
    pub game: Option<String>,
    #[command(flatten)]
    pub default_game: DefaultGameArgs,
    #[arg(long)]
    pub difficulty: String,
    #[arg(long)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A level JSON file; `-` reads standard input.
    pub file: PathBuf,
    /// The game; default: the file's `game` field, else DEFAULT_GAME.
    #[arg(long)]
    pub game: Option<String>,
    #[command(flatten)]
    pub default_game: DefaultGameArgs,
    #[command(flatten)]
    pub verify_budget: VerifyBudgetArgs,
}

#[derive(Debug, Args)]
pub struct PregenArgs {
    /// Default: DEFAULT_GAME.
    #[arg(long)]
    pub game: Option<String>,
    #[command(flatten)]
    pub default_game: DefaultGameArgs,
    #[arg(long)]
    pub difficulty: String,
    /// An inclusive range `FROM..TO`, or one seed.
    #[arg(long)]
    pub seeds: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub generation: GenerationArgs,
}

/// The ops listener, of `serve` and of `healthcheck`, which probes its port on 127.0.0.1.
#[derive(Debug, Clone, Args)]
pub struct AdminArgs {
    /// The ops listener: `/metrics`, `/healthz`, `/readyz`, outside the public listener's
    /// connection caps. Keep it off the public network.
    #[arg(long, env = "ADMIN_BIND", default_value = "127.0.0.1:9090")]
    pub admin_bind: SocketAddr,
}

#[derive(Debug, Args)]
pub struct HealthcheckArgs {
    #[command(flatten)]
    pub admin: AdminArgs,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Only this game (default: every game, one after the other).
    #[arg(long)]
    pub game: Option<String>,
    /// Levels per tier: the generated levels of seeds 1..=LEVELS.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..))]
    pub levels: u64,
    /// Bots in the population, the skills taken in turn from the weakest.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub bots: u64,
    /// Seeds every bot's choices: the same seed, the same figures.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// One JSON object per game, one a line, instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also draw each game's chart, measured against predicted rating and the solve
    /// rates by skill, to DIR/<game>.svg.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Only this game (default: every game, one after the other).
    #[arg(long)]
    pub game: Option<String>,
    /// Levels per tier to fit on, from seed 1,000,001 on (apart from `simulate`'s).
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(3..))]
    pub levels: u64,
    /// Bots in the population, the skills taken in turn from the weakest.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub bots: u64,
    /// Seeds every bot's choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write each model to DIR/<game>/prior.json (at the repository root: `--write
    /// games/src`, then commit) instead of printing it.
    #[arg(long, value_name = "DIR")]
    pub write: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
    /// The server's allocator setting, so that generation is timed as `serve` runs it.
    #[command(flatten)]
    pub allocator: AllocatorArgs,
    /// Seeds 1..=SEEDS per game and tier.
    #[arg(long, default_value_t = 200)]
    pub seeds: u64,
    /// Two seeds and one solver run: checks that the benchmark works, measures little.
    #[arg(long)]
    pub quick: bool,
    /// Only this game.
    #[arg(long)]
    pub game: Option<String>,
    /// Only this tier (with `--game`, a steady generation loop for a profiler).
    #[arg(long)]
    pub difficulty: Option<String>,
    /// Also print what was generated: par range, solver states, rejected candidates by
    /// reason and the mean of each key metric, per game and tier.
    #[arg(long)]
    pub survey: bool,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// The statistics routes and the play write path on a filled database
    /// (docs/stats.md). Fills the empty database at --database-url.
    Stats(BenchStatsArgs),
}

#[derive(Debug, Args)]
pub struct BenchStatsArgs {
    /// The database to fill (PostgreSQL or SQLite URL); it must be empty.
    #[arg(long)]
    pub database_url: String,
    /// Synthetic levels to store.
    #[arg(long, default_value_t = 1_000_000)]
    pub levels: u64,
    /// Synthetic plays to store.
    #[arg(long, default_value_t = 1_000_000)]
    pub plays: u64,
    /// Time a database an earlier run filled, as it is.
    #[arg(long)]
    pub reuse: bool,
    /// Timed requests per route.
    #[arg(long, default_value_t = 40)]
    pub requests: usize,
    /// Write-path rounds with rollups, each between two without.
    #[arg(long, default_value_t = 5)]
    pub write_rounds: u64,
    /// Skip the read routes and time only the write path.
    #[arg(long)]
    pub writes_only: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Rebuild the rollups from the stored rows (holding off writers meanwhile) and report
    /// how they differed; without it, only report.
    #[arg(long)]
    pub recompute: bool,
}

/// Parses `FROM..TO` (inclusive) or a single seed.
pub fn parse_seed_range(text: &str) -> Result<std::ops::RangeInclusive<u64>, String> {
    let bad = || format!("`{text}` is not a seed range like 1..1000");
    match text.split_once("..") {
        Some((from, to)) => {
            let from: u64 = from.trim().parse().map_err(|_| bad())?;
            let to: u64 = to
                .trim_start_matches('=')
                .trim()
                .parse()
                .map_err(|_| bad())?;
            if from > to {
                return Err(bad());
            }
            Ok(from..=to)
        }
        None => text.trim().parse().map(|s| s..=s).map_err(|_| bad()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Every environment variable of every command, with its defaults.
    fn settings(command: &clap::Command, out: &mut Vec<(String, String, Vec<String>)>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                let defaults = arg.get_default_values().iter();
                out.push((
                    env.to_string_lossy().into_owned(),
                    command.get_name().to_string(),
                    defaults.map(|d| d.to_string_lossy().into_owned()).collect(),
                ));
            }
        }
        for subcommand in command.get_subcommands() {
            settings(subcommand, out);
        }
    }

    #[test]
    fn a_setting_has_one_default_in_every_command() {
        let mut all = Vec::new();
        settings(&Cli::command(), &mut all);
        for (env, command, defaults) in &all {
            for (other_env, other_command, other_defaults) in &all {
                assert!(
                    env != other_env || defaults == other_defaults,
                    "{env}: {defaults:?} in {command}, {other_defaults:?} in {other_command}"
                );
            }
        }
        let commands_of = |name: &str| all.iter().filter(|(env, ..)| env == name).count();
        assert!(
            commands_of("DEFAULT_GAME") >= 4,
            "serve twice, generate, verify, pregen"
        );
        assert!(commands_of("VERIFY_MAX_STATES") >= 2, "serve, verify");
    }

    #[test]
    fn seed_ranges_parse() {
        assert_eq!(parse_seed_range("1..1000").unwrap(), 1..=1000);
        assert_eq!(parse_seed_range("5..=7").unwrap(), 5..=7);
        assert_eq!(parse_seed_range("9").unwrap(), 9..=9);
        assert!(parse_seed_range("7..5").is_err());
        assert!(parse_seed_range("a..b").is_err());
    }
}
