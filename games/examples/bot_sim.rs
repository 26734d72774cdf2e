//! The bots' side of `levelforge simulate` for one game, on one thread: generates the
//! levels of seeds 1..=LEVELS in every tier, has BOTS bots (the skills in turn) play each
//! and replays every play, then prints the times, the wins and a checksum of the moves
//! replayed, so that a change to the bots' speed can be checked to change no play.
//!
//! `cargo run --release -p levelforge-games --example bot_sim -- hashi 40 32`

use std::time::Instant;

use levelforge_games::{Difficulty, LevelRng, SKILLS, Stop, registry};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "hashi".into());
    let levels: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(40);
    let bots: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(32);
    let Some(game) = registry::find(&name) else {
        eprintln!("no game `{name}`; games: {:?}", registry::names());
        std::process::exit(2);
    };
    let started = Instant::now();
    let mut documents = Vec::new();
    for seed in 1..=levels {
        for tier in Difficulty::ALL {
            if let Ok(generated) = game.generate(tier, seed, &Stop::never()) {
                let document: serde_json::Value = serde_json::from_str(&generated.json).unwrap();
                documents.push((tier, seed, document));
            }
        }
    }
    let generated = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let (mut won, mut checksum) = (0u32, 0u64);
    for (tier, seed, document) in &documents {
        for bot in 0..bots {
            let stream = (tier.index() as u64) << 32 | bot;
            // The streams `levelforge simulate` draws at its default seed, 1.
            let mut rng = LevelRng::for_play([1, *seed, stream, name_word(&name)]);
            let skill = &SKILLS[bot as usize % SKILLS.len()];
            let played = game.bot_play(document, skill, &mut rng).unwrap();
            let outcome = game.check(document, &played.moves).unwrap();
            won += u32::from(played.won);
            checksum = checksum
                .wrapping_mul(31)
                .wrapping_add(u64::from(outcome.moves_used));
        }
    }
    println!(
        "{name}: {} levels generated in {generated:.2} s, {} plays in {:.2} s, {won} won, checksum {checksum}",
        documents.len(),
        documents.len() as u64 * bots,
        started.elapsed().as_secs_f64()
    );
}

/// The game's name as one seed word, as src/commands/simulate.rs makes it.
fn name_word(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    for (b, c) in bytes.iter_mut().zip(name.bytes()) {
        *b = c;
    }
    u64::from_le_bytes(bytes)
}
