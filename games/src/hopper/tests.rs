//! Solver, replay and generator tests for hopper.

use super::*;
use crate::core::Stop;
use crate::rng::LevelRng;

/// Candidate figures per tier, ignoring the par window: `cargo test --release measure -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_candidates() {
    let n: u64 = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    for difficulty in Difficulty::ALL {
        let tier = Hopper::tier(difficulty);
        let mut params = tier.params.clone();
        params.planned_hops = (0, u32::MAX);
        let stop = Stop::never();
        let limits = Limits {
            max_states: 5_000_000,
            stop: &stop,
        };
        let (mut planned, mut pars, mut states, mut ratio) = (vec![], vec![], vec![], vec![]);
        let mut failures = 0;
        let mut times = vec![];
        let started = std::time::Instant::now();
        for seed in 0..n {
            let mut rng = LevelRng::from_u64(seed);
            let Ok(p) = generator::generate(&params, &mut rng) else {
                failures += 1;
                continue;
            };
            let t = std::time::Instant::now();
            let a = Hopper::analyze(&p.level, &limits).unwrap();
            times.push(t.elapsed().as_micros() as u32);
            planned.push(p.hops.len() as u32);
            let par = a.par.unwrap();
            pars.push(par);
            ratio.push(par * 100 / p.hops.len() as u32);
            states.push(a.states);
            if std::env::var("REF").is_ok() {
                let (rpar, rcount) =
                    solver::reference_solve(&rules::Board::compile(&p.level), SOLUTION_CAP);
                assert_eq!((rpar, rcount), (a.par, a.solution_count), "{:?}", p.level);
            }
            if a.states > 1_000_000 && std::env::var("SHOW").is_ok() {
                println!(
                    "{}\n{:?} par {} planned {} states {}",
                    p.level.grid.join("\n"),
                    p.level.stars,
                    par,
                    p.hops.len(),
                    a.states
                );
            }
        }
        let ms = started.elapsed().as_millis();
        let q = |v: &mut Vec<u32>| {
            v.sort_unstable();
            let l = v.len();
            format!(
                "{} {} {} {} {} {}",
                v[0],
                v[l / 10],
                v[l / 4],
                v[l / 2],
                v[3 * l / 4],
                v[9 * l / 10]
            ) + &format!(" max {}", v[l - 1])
        };
        states.sort_unstable();
        let l = states.len();
        println!("{difficulty}: failures {failures} time {ms} ms");
        println!("  planned p0/10/25/50/75/90: {}", q(&mut planned));
        println!("  par     p0/10/25/50/75/90: {}", q(&mut pars));
        println!("  par*100/planned:          {}", q(&mut ratio));
        println!("  solve us:                 {}", q(&mut times));
        println!(
            "  states p50 {} p90 {} p99 {} max {}",
            states[l / 2],
            states[9 * l / 10],
            states[99 * l / 100],
            states[l - 1]
        );
    }
}

#[test]
#[ignore]
fn show_levels() {
    for difficulty in Difficulty::ALL {
        for seed in 1..=3 {
            let acc =
                crate::game::generate_level::<Hopper>(difficulty, seed, &Stop::never()).unwrap();
            println!(
                "{difficulty} seed {seed} par {} count {} attempts {} stars {:?}",
                acc.par, acc.analysis.solution_count, acc.attempts, acc.level.stars
            );
            println!(
                "{}\n{}\n",
                acc.level.grid.join("\n"),
                acc.analysis.solution.unwrap()
            );
        }
    }
}
