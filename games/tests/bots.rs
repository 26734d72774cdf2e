//! Simulated players of every game (the template included), through the JSON seam the
//! service uses: a bot's moves always replay by the play route's `check` without a rule
//! error, stop at its win, a loss or its budget, and the replay agrees with the bot on
//! whether it won; the same stream plays the same moves. Its judgement of moves is
//! tested on a hand-worked game in `src/bot/tests.rs`, each game's `Play` beside it.

use levelforge_games::game::Adapter;
use levelforge_games::template::Template;
use levelforge_games::{Difficulty, Game, LevelRng, SKILLS, Skill, Status, Stop, registry};
use proptest::prelude::*;
use serde_json::Value;

fn games() -> Vec<&'static dyn Game> {
    static TEMPLATE: Adapter<Template> = Adapter::<Template>::NEW;
    let mut games = registry::all().to_vec();
    games.push(&TEMPLATE);
    games
}

fn generate(game: &dyn Game, difficulty: Difficulty, seed: u64) -> Option<Value> {
    let generated = game.generate(difficulty, seed, &Stop::never()).ok()?;
    Some(serde_json::from_str(&generated.json).expect("level JSON"))
}

/// One bot's play, checked against the replay; the status the replay gives.
fn play_and_check(
    game: &dyn Game,
    level: &Value,
    skill: &Skill,
    stream: [u64; 4],
) -> Result<Status, TestCaseError> {
    let name = game.name();
    let played = game
        .bot_play(level, skill, &mut LevelRng::for_play(stream))
        .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
    let outcome = game
        .check(level, &played.moves)
        .map_err(|e| TestCaseError::fail(format!("{name}: {e}: {}", played.moves)))?;
    let listed = outcome.json["moves_used"].as_u64().unwrap()
        + outcome.json["moves_ignored"].as_u64().unwrap();
    prop_assert_eq!(outcome.status == Status::Won, played.won, "{}", name);
    prop_assert_eq!(outcome.json["moves_ignored"].as_u64(), Some(0), "{}", name);
    prop_assert!(listed <= u64::from(played.budget), "{}: over budget", name);
    let again = game
        .bot_play(level, skill, &mut LevelRng::for_play(stream))
        .unwrap();
    prop_assert_eq!(&again, &played, "{}: the same stream, the same play", name);
    Ok(outcome.status)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bots_play_by_the_rules_and_the_replay_agrees(seed in 1u64..10_000, tier in 0usize..4, stream in any::<u64>()) {
        let difficulty = Difficulty::ALL[tier];
        for game in games() {
            let Some(level) = generate(game, difficulty, seed) else { continue };
            for (i, skill) in SKILLS.iter().enumerate() {
                play_and_check(game, &level, skill, [stream, seed, i as u64, tier as u64])?;
            }
        }
    }
}

/// Across a few easy levels the strongest bot wins somewhere in every game but hashi,
/// whose deductions are beyond its lookahead (docs/difficulty.md), so the simulation
/// measures more than failures.
#[test]
fn the_strongest_bot_wins_some_easy_levels() {
    let strongest = SKILLS.last().unwrap();
    for game in games().into_iter().filter(|g| g.name() != "hashi") {
        let wins = (1..=10)
            .filter_map(|seed| generate(game, Difficulty::Easy, seed))
            .filter(|level| {
                matches!(
                    play_and_check(game, level, strongest, [1, 2, 3, 4]),
                    Ok(Status::Won)
                )
            })
            .count();
        assert!(wins > 0, "{}: no win on easy seeds 1..=10", game.name());
    }
}

#[test]
fn a_level_without_par_is_refused() {
    let game = registry::find("fruit").unwrap();
    let mut level = generate(game, Difficulty::Easy, 1).unwrap();
    level.as_object_mut().unwrap().remove("par");
    let refused = game.bot_play(&level, &SKILLS[0], &mut LevelRng::from_u64(1));
    assert!(refused.is_err());
}
