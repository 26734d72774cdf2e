//! Generates a range of seeds for one game at every tier and prints acceptance and timing.
//! `cargo run -p levelforge-games --release --example survey -- fruit 100`

use std::time::Instant;

use levelforge_games::{Difficulty, Stop, registry};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = registry::find(args.get(1).map_or("fruit", String::as_str)).expect("known game");
    let seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    println!("game {} seeds 1..={seeds}", game.name());
    println!("tier    ok  attempts/level  par(min..max) mean   gen ms p50/p95/max   states p50");
    for difficulty in Difficulty::ALL {
        let (mut ok, mut attempts, mut pars, mut times, mut states) =
            (0, 0u64, vec![], vec![], vec![]);
        let mut rejections = std::collections::BTreeMap::new();
        for seed in 1..=seeds {
            let started = Instant::now();
            match game.generate(difficulty, seed, &Stop::never()) {
                Ok(g) => {
                    ok += 1;
                    attempts += u64::from(g.summary.attempts);
                    pars.push(g.summary.par);
                    states.push(g.summary.states);
                    for (k, v) in g.summary.rejections {
                        *rejections.entry(k).or_insert(0) += v;
                    }
                }
                Err(e) => eprintln!("{difficulty} seed {seed}: {e}"),
            }
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        pars.sort_unstable();
        states.sort_unstable();
        let pct = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p) as usize];
        println!(
            "{:<7} {:>3}  {:>8.1}        {}..{} {:>5.1}   {:>6.1}/{:>6.1}/{:>7.1}   {}",
            difficulty.as_str(),
            ok,
            attempts as f64 / ok.max(1) as f64,
            pars.first().unwrap_or(&0),
            pars.last().unwrap_or(&0),
            pars.iter().sum::<u32>() as f64 / ok.max(1) as f64,
            pct(&times, 0.5),
            pct(&times, 0.95),
            times.last().unwrap(),
            states.get(states.len() / 2).unwrap_or(&0),
        );
        println!("        rejections: {rejections:?}");
    }
}
