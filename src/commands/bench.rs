//! `levelforge bench`: cold generation latency of every game × tier over a fixed seed
//! range, and each game's solver speed on its fixed heavy level. In process and one
//! generation at a time, so the figures are the work itself, without HTTP or a database;
//! `scripts/bench.sh` adds the HTTP figures. `--survey` adds what the levels are like
//! (par, solver states, rejections, key metrics), for tuning a generator.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use levelforge_games::{Difficulty, Game, Generated, Limits, Stop, registry};
use serde_json::Value;

use crate::compression::Encoding;
use crate::config::BenchArgs;

/// The cold-generation targets (docs/benchmarks.md), in milliseconds.
const P95_TARGET_MS: f64 = 50.0;
const P99_TARGET_MS: f64 = 100.0;
/// A heavy level is analysed repeatedly until this much time has passed (at least
/// `SOLVER_MIN_RUNS` times), and the median run is reported.
const SOLVER_TIME: Duration = Duration::from_secs(2);
const SOLVER_MIN_RUNS: usize = 3;
/// States one benchmark analysis may expand: far above any heavy level.
const SOLVER_MAX_STATES: u64 = 50_000_000;

/// Prints both tables; fails only on an unknown game or a solver that gives up.
pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    args.allocator.apply()?;
    let games = selected_games(args.game.as_deref())?;
    let tiers = match &args.difficulty {
        None => Difficulty::ALL.to_vec(),
        Some(text) => vec![text.parse().map_err(anyhow::Error::msg)?],
    };
    let seeds = if args.quick { 2 } else { args.seeds };
    println!("levelforge bench: {}", machine());
    println!("load average at start: {}", load_average());
    println!();
    println!(
        "cold generation, seeds 1..={seeds}, one at a time (target p95 <= {P95_TARGET_MS} ms, p99 <= {P99_TARGET_MS} ms)"
    );
    println!(
        "{:<10} {:<7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6}  target",
        "game", "tier", "levels", "p50 ms", "p95 ms", "p99 ms", "max ms", "attempts", "max"
    );
    let mut misses = Vec::new();
    let mut rows = Vec::new();
    for game in &games {
        for &difficulty in &tiers {
            let row = generation_row(*game, difficulty, seeds);
            println!("{row}");
            if !row.meets_targets() {
                misses.push(format!("{} {}", game.name(), difficulty));
            }
            std::io::stdout().flush()?;
            rows.push(row);
        }
    }
    if args.survey {
        println!();
        println!("survey of the generated levels (medians; rejected candidates by reason)");
        for row in &rows {
            println!("{}", row.survey());
        }
    }
    println!();
    compression_table(&rows);
    println!();
    println!("solver on each game's fixed heavy level (median of the runs)");
    println!(
        "{:<10} {:>8} {:>10} {:>5} {:>10} {:>12}",
        "game", "board", "states", "runs", "median s", "states/s"
    );
    let runs = if args.quick { 1 } else { SOLVER_MIN_RUNS };
    for game in &games {
        println!("{}", solver_row(*game, runs)?);
        std::io::stdout().flush()?;
    }
    println!();
    println!("load average at end: {}", load_average());
    if misses.is_empty() {
        println!("cold generation targets: all met");
    } else {
        println!("cold generation targets missed: {}", misses.join(", "));
    }
    Ok(())
}

fn selected_games(name: Option<&str>) -> anyhow::Result<Vec<&'static dyn Game>> {
    match name {
        None => Ok(registry::all().to_vec()),
        Some(name) => registry::find(name).map(|g| vec![g]).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown game `{name}`: the games are {}",
                registry::names().join(", ")
            )
        }),
    }
}

/// One game × tier: generation times and attempts over the seed range, and what the
/// accepted levels were like (for `--survey`).
struct GenerationRow {
    game: &'static str,
    difficulty: Difficulty,
    /// Milliseconds per key, sorted.
    times: Vec<f64>,
    attempts: Vec<u32>,
    failures: u64,
    /// Sorted once the range is done.
    pars: Vec<u32>,
    states: Vec<u64>,
    rejections: BTreeMap<&'static str, u64>,
    /// Per key metric: the sum of its numeric values (booleans as 0 or 1) and their count.
    metrics: Vec<(&'static str, f64, u64)>,
    /// The generated levels' JSON, for the compression table.
    levels: Vec<String>,
}

fn generation_row(game: &'static dyn Game, difficulty: Difficulty, seeds: u64) -> GenerationRow {
    let mut row = GenerationRow {
        game: game.name(),
        difficulty,
        times: Vec::new(),
        attempts: Vec::new(),
        failures: 0,
        pars: Vec::new(),
        states: Vec::new(),
        rejections: BTreeMap::new(),
        metrics: game.key_metrics().iter().map(|&m| (m, 0.0, 0)).collect(),
        levels: Vec::new(),
    };
    for seed in 1..=seeds {
        let started = Instant::now();
        let generated = game.generate(difficulty, seed, &Stop::never());
        row.times.push(started.elapsed().as_secs_f64() * 1000.0);
        match generated {
            Ok(level) => row.record(&level),
            Err(_) => row.failures += 1,
        }
    }
    row.times.sort_by(f64::total_cmp);
    row.pars.sort_unstable();
    row.states.sort_unstable();
    row
}

impl GenerationRow {
    fn record(&mut self, level: &Generated) {
        let summary = &level.summary;
        self.attempts.push(summary.attempts);
        self.levels.push(level.json.clone());
        self.pars.push(summary.par);
        self.states.push(summary.states);
        for (&why, &count) in &summary.rejections {
            *self.rejections.entry(why).or_insert(0) += u64::from(count);
        }
        let metrics: Value = serde_json::from_str(summary.metrics.get()).unwrap_or_default();
        for (name, sum, count) in &mut self.metrics {
            let value = match &metrics[*name] {
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                other => other.as_f64(),
            };
            if let Some(value) = value {
                *sum += value;
                *count += 1;
            }
        }
    }

    /// One line: par range and median, median solver states, rejections, metric means.
    fn survey(&self) -> String {
        let median = |n: usize| n / 2;
        let par = match (self.pars.first(), self.pars.last()) {
            (Some(min), Some(max)) => format!(
                "par {min}..{max} median {}",
                self.pars[median(self.pars.len())]
            ),
            _ => "no levels".to_string(),
        };
        let states = self.states.get(median(self.states.len())).unwrap_or(&0);
        let rejected = if self.rejections.is_empty() {
            "none".to_string()
        } else {
            let list: Vec<String> = self
                .rejections
                .iter()
                .map(|(why, n)| format!("{why} {n}"))
                .collect();
            list.join(", ")
        };
        let means: Vec<String> = self
            .metrics
            .iter()
            .filter(|(_, _, count)| *count > 0)
            .map(|(name, sum, count)| format!("{name} {:.2}", sum / *count as f64))
            .collect();
        format!(
            "{:<10} {:<7} {par}; states {states}; rejected: {rejected}; means: {}",
            self.game,
            self.difficulty.as_str(),
            means.join(", ")
        )
    }

    fn percentile(&self, p: f64) -> f64 {
        nearest_rank(&self.times, p)
    }

    fn meets_targets(&self) -> bool {
        self.failures == 0
            && self.percentile(0.95) <= P95_TARGET_MS
            && self.percentile(0.99) <= P99_TARGET_MS
    }
}

impl std::fmt::Display for GenerationRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mean_attempts = self.attempts.iter().map(|&a| f64::from(a)).sum::<f64>()
            / self.attempts.len().max(1) as f64;
        let verdict = match (self.meets_targets(), self.failures) {
            (true, _) => "ok".to_string(),
            (false, 0) => "MISSED".to_string(),
            (false, n) => format!("MISSED ({n} keys without a level)"),
        };
        write!(
            f,
            "{:<10} {:<7} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>9.1} {:>6}  {verdict}",
            self.game,
            self.difficulty.as_str(),
            self.attempts.len(),
            self.percentile(0.5),
            self.percentile(0.95),
            self.percentile(0.99),
            self.times.last().copied().unwrap_or(0.0),
            mean_attempts,
            self.attempts.iter().max().copied().unwrap_or(0),
        )
    }
}

/// The first (cold) compression of each level as the server makes it, once per coding,
/// median over the row's levels; then one pack of up to 100 of them, as
/// `GET /levels/{tier}?count=100` serves it.
fn compression_table(rows: &[GenerationRow]) {
    println!(
        "first compression of each level (median of the levels) and of a pack of up to 100; bytes and microseconds"
    );
    print!("{:<18} {:>6} {:>7}", "game/tier", "levels", "bytes");
    for encoding in Encoding::COMPRESSED {
        print!(" {:>6} {:>6}", encoding.token(), "us");
    }
    print!(" {:>7}", "pack B");
    for encoding in Encoding::COMPRESSED {
        print!(" {:>6} {:>7}", encoding.token(), "us");
    }
    println!();
    for row in rows {
        let median = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            values.get(values.len() / 2).copied().unwrap_or(0.0)
        };
        let sizes = row.levels.iter().map(|l| l.len() as f64).collect();
        // One `game/tier` column: the generation table's rows start with `game tier`.
        print!(
            "{:<18} {:>6} {:>7.0}",
            format!("{}/{}", row.game, row.difficulty.as_str()),
            row.levels.len(),
            median(sizes)
        );
        for encoding in Encoding::COMPRESSED {
            let (bytes, micros): (Vec<f64>, Vec<f64>) = row
                .levels
                .iter()
                .map(|level| timed_compression(encoding, level.as_bytes()))
                .unzip();
            print!(" {:>6.0} {:>6.0}", median(bytes), median(micros));
        }
        let pack = format!(
            "[{}]",
            row.levels
                .iter()
                .take(100)
                .cloned()
                .collect::<Vec<_>>()
                .join(",")
        );
        print!(" {:>7}", pack.len());
        for encoding in Encoding::COMPRESSED {
            let (bytes, micros) = timed_compression(encoding, pack.as_bytes());
            print!(" {bytes:>6.0} {micros:>7.0}");
        }
        println!();
        let _ = std::io::stdout().flush();
    }
}

/// Compressed size and microseconds of one compression, as the server makes it.
fn timed_compression(encoding: Encoding, bytes: &[u8]) -> (f64, f64) {
    let started = Instant::now();
    let compressed = encoding.compress(bytes);
    let micros = started.elapsed().as_secs_f64() * 1e6;
    (compressed.len() as f64, micros)
}

/// The smallest value with at least `p` of the values at or below it (as `/stats`).
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Times the verification solver on the game's heavy level: at least `min_runs` runs,
/// more until [`SOLVER_TIME`] has passed (one run in quick mode).
fn solver_row(game: &'static dyn Game, min_runs: usize) -> anyhow::Result<String> {
    let level = game.bench_level();
    let limits = Limits::states(SOLVER_MAX_STATES);
    let started = Instant::now();
    let mut times = Vec::new();
    let mut states = 0;
    while times.len() < min_runs || (min_runs > 1 && started.elapsed() < SOLVER_TIME) {
        let run = Instant::now();
        let report = game.verify(&level, &limits)?;
        times.push(run.elapsed().as_secs_f64());
        anyhow::ensure!(
            report["gave_up"].is_null(),
            "{}: the solver gave up on its bench level",
            game.name()
        );
        states = report["metrics"]["states"].as_u64().unwrap_or(0);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let board = format!(
        "{}x{}",
        level["width"].as_u64().unwrap_or(0),
        level["height"].as_u64().unwrap_or(0)
    );
    Ok(format!(
        "{:<10} {:>8} {:>10} {:>5} {:>10.4} {:>12}",
        game.name(),
        board,
        states,
        times.len(),
        median,
        per_second(states as f64 / median)
    ))
}

/// A rate with an SI suffix, e.g. `2.41 M`.
fn per_second(rate: f64) -> String {
    match rate {
        r if r >= 1e6 => format!("{:.2} M", r / 1e6),
        r if r >= 1e3 => format!("{:.1} k", r / 1e3),
        r => format!("{r:.0}"),
    }
}

/// CPU model and count, as far as the system says.
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let build = if cfg!(debug_assertions) {
        "debug build: figures are not representative"
    } else {
        "release build"
    };
    format!("{cpus} CPUs ({model}), {build}")
}

/// The 1/5/15-minute load averages, or `unknown`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_picks_the_smallest_value_covering_p() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&values, 0.5), 50.0);
        assert_eq!(nearest_rank(&values, 0.95), 95.0);
        assert_eq!(nearest_rank(&values, 0.99), 99.0);
        assert_eq!(nearest_rank(&[7.0, 9.0], 0.5), 7.0);
        assert_eq!(nearest_rank(&[7.0, 9.0], 0.95), 9.0);
        assert_eq!(nearest_rank(&[], 0.5), 0.0);
    }

    #[test]
    fn rates_read_well() {
        assert_eq!(per_second(2_410_000.0), "2.41 M");
        assert_eq!(per_second(12_345.0), "12.3 k");
        assert_eq!(per_second(999.0), "999");
    }
}
