//! `levelforge simulate`: a population of simulated players (`levelforge_games::bot`)
//! plays the generated levels of every tier; each play is judged by the same replay as
//! the play route (`Game::check`), and rated as a play is (Glicko-2, bot against level).
//! What comes out: solve rates per tier, each level's measured rating, how well those
//! ratings order the tiers, and how many plays a level priced 400 off needs to come
//! within 100 of where the bots place it (docs/difficulty.md).

mod convergence;
mod measured;

pub use convergence::Convergence;
pub use measured::Measured;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use levelforge_games::registry;
use levelforge_games::{
    Difficulty, Figures, Game, GenerateError, LevelRng, SKILLS, Skill, Status, Stop,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::config::SimulateArgs;
use crate::service::rating::{Rating, Standing, rate_play_of};

/// `levelforge simulate`: every game asked for, one after the other.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let games = games_named(args.game.as_deref())?;
    let setting = Setting {
        levels: args.levels,
        bots: args.bots as usize,
        seed: args.seed,
    };
    for game in games {
        let report = simulate(game, &setting)?;
        if let Some(dir) = &args.plot {
            let path = dir.join(format!("{}.svg", game.name()));
            std::fs::write(&path, report.chart())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if args.json {
            println!("{}", report.to_json());
        } else {
            report.print();
        }
    }
    Ok(())
}

/// The game called `name`, or every game.
pub fn games_named(name: Option<&str>) -> anyhow::Result<Vec<&'static dyn Game>> {
    Ok(match name {
        Some(name) => vec![registry::find(name).with_context(|| {
            format!(
                "unknown game `{name}`: the games are {}",
                registry::names().join(", ")
            )
        })?],
        None => registry::all().to_vec(),
    })
}

/// One run's size and seed.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Levels per tier (seeds 1..=levels).
    pub levels: u64,
    pub bots: usize,
    pub seed: u64,
}

/// A generated level, as the play route sees it, with its solver figures and the rating
/// the game's committed model predicts from them.
pub struct Level {
    pub tier: Difficulty,
    pub seed: u64,
    document: Value,
    pub figures: Figures,
    pub prior: f64,
}

/// Bot `bot`'s skill: the skills in turn, weakest first.
fn skill_of(bot: usize) -> &'static Skill {
    &SKILLS[bot % SKILLS.len()]
}

/// Simulates one game over the levels of seeds 1..=levels: generate, play, rate, measure.
pub fn simulate(game: &dyn Game, setting: &Setting) -> anyhow::Result<Report> {
    let started = Instant::now();
    let (levels, ratings) = measure(game, setting, 1)?;
    Ok(Report::new(
        game.name(),
        setting,
        &levels,
        &ratings,
        started.elapsed().as_secs_f64(),
    ))
}

/// The levels of `setting.levels` seeds from `first_seed` on, and what the bots measured
/// of each: whether each bot solved it, and its rating.
pub fn measure(
    game: &dyn Game,
    setting: &Setting,
    first_seed: u64,
) -> anyhow::Result<(Vec<Level>, Measured)> {
    let levels = generate(game, first_seed..first_seed + setting.levels)?;
    let solved = play_all(game, &levels, setting)?;
    let (ratings, bots) = rate(&solved, setting.bots);
    Ok((
        levels,
        Measured {
            solved,
            ratings,
            bots,
        },
    ))
}

/// The levels of `seeds` in every tier, seed by seed, so that the rating rounds meet
/// the tiers mixed. A key the generator cannot serve is no level and is left out.
/// Generated on every CPU, kept in key order.
fn generate(game: &dyn Game, seeds: std::ops::Range<u64>) -> anyhow::Result<Vec<Level>> {
    let keys: Vec<(u64, Difficulty)> = seeds
        .flat_map(|seed| Difficulty::ALL.map(|tier| (seed, tier)))
        .collect();
    let levels = on_every_cpu(&keys, |&(seed, tier)| {
        match game.generate(tier, seed, &Stop::never()) {
            Ok(generated) => Ok(Some(Level {
                tier,
                seed,
                document: serde_json::from_str(&generated.json)?,
                figures: Figures::of_metrics(
                    generated.summary.par,
                    generated.summary.metrics.get(),
                ),
                prior: generated.summary.prior_rating,
            })),
            Err(GenerateError::NoCandidateAccepted { .. }) => Ok(None),
            Err(e) => bail!("{} {tier} {seed}: {e}", game.name()),
        }
    })?;
    Ok(levels.into_iter().flatten().collect())
}

/// Whether each bot solved each level (`[level][bot]`), the plays spread over every CPU.
/// Each play draws from its own stream, so the result does not depend on the schedule.
fn play_all(
    game: &dyn Game,
    levels: &[Level],
    setting: &Setting,
) -> anyhow::Result<Vec<Vec<bool>>> {
    on_every_cpu(levels, |level| {
        (0..setting.bots)
            .map(|bot| solves(game, level, bot, setting.seed))
            .collect()
    })
}

/// `work` done on each item, spread over every CPU (each thread takes the next item
/// left), the results in the items' order: the same whatever the schedule, as long as
/// `work` depends on its item alone. The first error ends it.
fn on_every_cpu<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> anyhow::Result<R> + Sync,
) -> anyhow::Result<Vec<R>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return Ok(());
                        };
                        let result = work(item)?;
                        results.lock().expect("no worker panics")[i] = Some(result);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("a worker panicked"))
    })?;
    let results = results.into_inner().expect("no worker panics");
    Ok(results
        .into_iter()
        .map(|r| r.expect("every item was worked"))
        .collect())
}

/// One bot's play of one level, judged by the play route's replay: solved when won
/// within the bot's move budget.
fn solves(game: &dyn Game, level: &Level, bot: usize, seed: u64) -> anyhow::Result<bool> {
    let mut rng = LevelRng::for_play([
        seed,
        level.seed,
        ((level.tier.index() as u64) << 32) | bot as u64,
        name_word(game.name()),
    ]);
    let played = game.bot_play(&level.document, skill_of(bot), &mut rng)?;
    let outcome = game
        .check(&level.document, &played.moves)
        .with_context(|| {
            format!(
                "{} {} {}: the bot's moves do not replay",
                game.name(),
                level.tier,
                level.seed
            )
        })?;
    let won = outcome.status == Status::Won;
    if won != played.won {
        bail!(
            "{} {} {}: the bot and the replay disagree on the win",
            game.name(),
            level.tier,
            level.seed
        );
    }
    Ok(won && outcome.moves_used <= played.budget)
}

/// A game's name as one seed word (its first eight bytes), so games draw apart.
fn name_word(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    for (b, c) in bytes.iter_mut().zip(name.bytes()) {
        *b = c;
    }
    u64::from_le_bytes(bytes)
}

/// Every level's rating after the plays, rated one at a time as the play route rates
/// them (`rate_play_of`: a bot moves a level only once established). Round `r` gives
/// level `i` to bot `(i + r) % bots`, so every bot plays every level once and every
/// bot's rating moves along with the levels'.
fn rate(solved: &[Vec<bool>], bots: usize) -> (Vec<Rating>, Vec<Standing>) {
    let mut levels = vec![Rating::default(); solved.len()];
    let mut players = vec![Standing::new(); bots];
    for round in 0..bots {
        for (i, row) in solved.iter().enumerate() {
            let bot = (i + round) % bots;
            let rated = rate_play_of(&players[bot], levels[i], row[bot]);
            players[bot] = players[bot].after(&rated);
            levels[i] = rated.level;
        }
    }
    (levels, players)
}

/// The chance that a level drawn from `harder` is rated above one drawn from `easier`
/// (ties count half): the area under the ROC curve of the rating as a tier separator.
/// `None` when either side is empty.
pub fn auc(easier: &[f64], harder: &[f64]) -> Option<f64> {
    if easier.is_empty() || harder.is_empty() {
        return None;
    }
    let wins: f64 = harder
        .iter()
        .flat_map(|h| easier.iter().map(move |e| (h, e)))
        .map(|(h, e)| match h.partial_cmp(e) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Equal) => 0.5,
            _ => 0.0,
        })
        .sum();
    Some(wins / (easier.len() * harder.len()) as f64)
}

/// One tier's figures.
#[derive(Clone, Debug, Serialize)]
pub struct TierReport {
    pub levels: usize,
    /// Plays solved within the bot's budget, of all plays on the tier's levels.
    pub solve_rate: f64,
    /// The same per skill, weakest first.
    pub solve_rate_by_skill: BTreeMap<&'static str, f64>,
    pub mean_rating: f64,
}

/// One game's figures.
#[derive(Clone, Debug)]
pub struct Report {
    pub game: &'static str,
    pub setting: Setting,
    pub tiers: Vec<(Difficulty, TierReport)>,
    /// `easy<medium`, `medium<hard`, `hard<expert`: see [`auc`].
    pub tier_auc: Vec<(String, Option<f64>)>,
    /// How well the committed model's priors rank the measured ratings (Spearman): none
    /// of these levels is one the model was fitted on (`levelforge calibrate` fits on
    /// other seeds).
    pub prior_spearman: Option<f64>,
    /// Each skill's mean rating over its bots: the scale the levels' ratings are on.
    pub skill_ratings: BTreeMap<&'static str, f64>,
    /// Plays a level priced 400 off (either way) needs to come within 100 of its
    /// measured rating, the established bots playing it again.
    pub convergence: Convergence,
    /// Every level's prior and measured rating.
    pub points: Vec<crate::service::difficulty_chart::Point>,
    pub seconds: f64,
}

impl Report {
    pub fn new(
        game: &'static str,
        setting: &Setting,
        levels: &[Level],
        measured: &Measured,
        seconds: f64,
    ) -> Report {
        let (solved, ratings) = (&measured.solved, &measured.ratings);
        let in_tier = |tier: Difficulty| -> Vec<usize> {
            (0..levels.len())
                .filter(|&i| levels[i].tier == tier)
                .collect()
        };
        let rated = |tier: Difficulty| -> Vec<f64> {
            in_tier(tier).iter().map(|&i| ratings[i].rating).collect()
        };
        let tiers = Difficulty::ALL
            .into_iter()
            .map(|tier| (tier, tier_report(&in_tier(tier), solved, ratings)))
            .collect();
        let tier_auc = Difficulty::ALL
            .windows(2)
            .map(|pair| {
                let name = format!("{}<{}", pair[0], pair[1]);
                (name, auc(&rated(pair[0]), &rated(pair[1])))
            })
            .collect();
        let priors: Vec<f64> = levels.iter().map(|l| l.prior).collect();
        let measured_ratings: Vec<f64> = ratings.iter().map(|r| r.rating).collect();
        let skill_ratings = SKILLS
            .iter()
            .filter_map(|skill| {
                let of_skill: Vec<f64> = (0..measured.bots.len())
                    .filter(|&bot| skill_of(bot).name == skill.name)
                    .map(|bot| measured.bots[bot].rating.rating)
                    .collect();
                let mean = of_skill.iter().sum::<f64>() / of_skill.len() as f64;
                (!of_skill.is_empty()).then_some((skill.name, mean.round()))
            })
            .collect();
        Report {
            game,
            setting: *setting,
            tiers,
            tier_auc,
            prior_spearman: levelforge_games::prior::spearman(&priors, &measured_ratings),
            skill_ratings,
            convergence: Convergence::of(measured),
            points: levels
                .iter()
                .zip(ratings)
                .map(|(level, rating)| crate::service::difficulty_chart::Point {
                    tier: level.tier,
                    predicted: level.prior,
                    measured: rating.rating,
                })
                .collect(),
            seconds,
        }
    }

    /// Per tier, the solve rate of each skill.
    pub fn solve_rates(&self) -> BTreeMap<String, BTreeMap<String, f64>> {
        self.tiers
            .iter()
            .map(|(tier, report)| {
                let rates = report
                    .solve_rate_by_skill
                    .iter()
                    .map(|(skill, rate)| (skill.to_string(), (rate * 100.0).round() / 100.0))
                    .collect();
                (tier.to_string(), rates)
            })
            .collect()
    }

    /// The chart of `--plot`.
    pub fn chart(&self) -> String {
        let skills: Vec<&str> = SKILLS.iter().map(|k| k.name).collect();
        let s = &self.setting;
        let title = format!(
            "{}: {} levels per tier, {} bots, seed {}",
            self.game, s.levels, s.bots, s.seed
        );
        crate::service::difficulty_chart::chart(
            &title,
            &self.points,
            &crate::service::difficulty_chart::curves_of(&skills, &self.solve_rates()),
        )
    }

    /// The JSON object of `--json`.
    pub fn to_json(&self) -> Value {
        let tiers: serde_json::Map<String, Value> = self
            .tiers
            .iter()
            .map(|(tier, report)| (tier.to_string(), json!(report)))
            .collect();
        let tier_auc: serde_json::Map<String, Value> = self
            .tier_auc
            .iter()
            .map(|(name, auc)| (name.clone(), json!(auc)))
            .collect();
        json!({
            "game": self.game,
            "levels_per_tier": self.setting.levels,
            "bots": self.setting.bots,
            "seed": self.setting.seed,
            "skills": SKILLS,
            "tiers": tiers,
            "tier_auc": tier_auc,
            "prior_spearman": self.prior_spearman.map(|r| (r * 1000.0).round() / 1000.0),
            "skill_ratings": self.skill_ratings,
            "mispriced_400": self.convergence.to_json(),
            "seconds": (self.seconds * 10.0).round() / 10.0,
        })
    }

    fn print(&self) {
        let s = &self.setting;
        println!(
            "{}: {} levels per tier, {} bots, seed {}, {:.1} s",
            self.game, s.levels, s.bots, s.seed, self.seconds
        );
        let skills: Vec<String> = SKILLS.iter().map(|k| format!("{:>8}", k.name)).collect();
        println!(
            "{:<8}{:>7}{:>8}{}{:>8}",
            "tier",
            "levels",
            "solved",
            skills.join(""),
            "rating"
        );
        for (tier, t) in &self.tiers {
            let by_skill: Vec<String> = SKILLS
                .iter()
                .map(|k| format!("{:>8.2}", t.solve_rate_by_skill[k.name]))
                .collect();
            println!(
                "{:<8}{:>7}{:>8.2}{}{:>8.0}",
                tier.as_str(),
                t.levels,
                t.solve_rate,
                by_skill.join(""),
                t.mean_rating
            );
        }
        let aucs: Vec<String> = self
            .tier_auc
            .iter()
            .map(|(name, auc)| match auc {
                Some(a) => format!("{name} {a:.2}"),
                None => format!("{name} -"),
            })
            .collect();
        println!("tier AUC: {}", aucs.join(", "));
        let skills: Vec<String> = self
            .skill_ratings
            .iter()
            .map(|(name, rating)| format!("{name} {rating:.0}"))
            .collect();
        println!("bots' ratings: {}", skills.join(", "));
        println!("{}", self.convergence);
        match self.prior_spearman {
            Some(r) => println!("prior against measured rating, Spearman: {r:.3}"),
            None => println!("prior against measured rating, Spearman: -"),
        }
        println!();
    }
}

/// The figures of the levels `members` (indices into `solved` and `ratings`).
fn tier_report(members: &[usize], solved: &[Vec<bool>], ratings: &[Rating]) -> TierReport {
    let rate_of = |bots: &dyn Fn(usize) -> bool| -> f64 {
        let (mut won, mut plays) = (0usize, 0usize);
        for &i in members {
            for (bot, &s) in solved[i].iter().enumerate() {
                if bots(bot) {
                    plays += 1;
                    won += usize::from(s);
                }
            }
        }
        if plays == 0 {
            0.0
        } else {
            won as f64 / plays as f64
        }
    };
    let solve_rate_by_skill = SKILLS
        .iter()
        .map(|k| (k.name, rate_of(&|bot| skill_of(bot).name == k.name)))
        .collect();
    let mean_rating = if members.is_empty() {
        0.0
    } else {
        members.iter().map(|&i| ratings[i].rating).sum::<f64>() / members.len() as f64
    };
    TierReport {
        levels: members.len(),
        solve_rate: rate_of(&|_| true),
        solve_rate_by_skill,
        mean_rating,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_the_pairs_the_harder_tier_wins_and_half_the_ties() {
        // Pairs (harder, easier): 1600 beats 1500 and ties 1600, 1400 beats neither.
        assert_eq!(auc(&[1500.0, 1600.0], &[1600.0, 1400.0]), Some(1.5 / 4.0));
        assert_eq!(auc(&[1.0], &[2.0, 3.0]), Some(1.0));
        assert_eq!(auc(&[], &[2.0]), None);
    }

    #[test]
    fn a_level_every_bot_fails_ends_above_one_every_bot_solves() {
        // 60 levels, every other one solved by all four bots: each bot plays 15 a round,
        // so from the second round on the bots are established and move the levels.
        let solved: Vec<Vec<bool>> = (0..60).map(|i| vec![i % 2 == 0; 4]).collect();
        let (ratings, bots) = rate(&solved, 4);
        assert!(bots.iter().all(|bot| bot.is_established()), "{bots:?}");
        for (i, rating) in ratings.iter().enumerate() {
            let side = if i % 2 == 0 { -1.0 } else { 1.0 };
            assert!(
                side * (rating.rating - 1500.0) > 0.0,
                "level {i}: {rating:?}"
            );
        }
    }

    #[test]
    fn newcomers_move_only_their_own_ratings() {
        // Two levels, four bots: no bot gets to 20 plays, so the levels stay as they were
        // and every bot's own rating moved.
        let solved = vec![vec![true; 4], vec![false; 4]];
        let (ratings, bots) = rate(&solved, 4);
        assert!(
            ratings.iter().all(|r| *r == Rating::default()),
            "{ratings:?}"
        );
        assert!(
            bots.iter()
                .all(|b| b.rated_plays == 2 && b.rating.deviation < 350.0)
        );
    }
}
