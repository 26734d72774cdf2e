//! The bot's judgement on a hand-worked toy game: a line of cells with a pit at -1 and
//! the goal at 3, stepped left or right from 0.

use super::*;

struct Line;

const PIT: i32 = -1;
const GOAL: i32 = 3;

impl Play for Line {
    type Level = ();
    type Moves = String;
    type Position = i32;
    type Move = char;

    fn start(_: &()) -> (Line, i32) {
        (Line, 0)
    }

    fn moves(&self, at: &i32) -> Vec<char> {
        if self.won(at) {
            Vec::new()
        } else {
            vec!['L', 'R']
        }
    }

    fn apply(&self, at: &i32, step: &char) -> Option<i32> {
        let next = if *step == 'L' { at - 1 } else { at + 1 };
        (next != PIT).then_some(next)
    }

    fn won(&self, at: &i32) -> bool {
        *at == GOAL
    }

    fn record(&self, line: &[char]) -> String {
        line.iter().collect()
    }
}

fn skill(depth: u32, budget_percent: u32, mistakes_per_mille: u32) -> Skill {
    Skill {
        name: "test",
        depth,
        budget_percent,
        mistakes_per_mille,
    }
}

fn play_line(skill: &Skill, seed: u64) -> BotPlay<String> {
    play::<Line>(&(), 3, skill, &mut LevelRng::from_u64(seed))
}

#[test]
fn a_careful_bot_sees_the_win_three_moves_ahead() {
    // Left falls into the pit; right leads to the goal in three.
    for seed in 0..20 {
        let played = play_line(&skill(3, 100, 0), seed);
        assert_eq!((played.moves.as_str(), played.won), ("RRR", true));
    }
}

#[test]
fn a_one_move_bot_avoids_the_pit_and_the_way_back() {
    // From 0 left loses; from 1 and 2 left returns to a cell already stood on.
    for seed in 0..20 {
        let played = play_line(&skill(1, 100, 0), seed);
        assert_eq!((played.moves.as_str(), played.won), ("RRR", true));
    }
}

#[test]
fn the_budget_stops_the_bot_unsolved() {
    // 50 % of par 3 rounds up to two moves.
    let played = play_line(&skill(3, 50, 0), 1);
    assert_eq!(played.budget, 2);
    assert_eq!((played.moves.as_str(), played.won), ("RR", false));
}

#[test]
fn a_careless_bot_sometimes_falls_and_the_same_seed_plays_the_same() {
    let careless = skill(3, 300, 1000);
    let plays: Vec<BotPlay<String>> = (0..40).map(|seed| play_line(&careless, seed)).collect();
    assert!(plays.iter().any(|p| p.moves == "L"), "the pit at once");
    assert!(plays.iter().any(|p| p.won));
    for (seed, played) in plays.iter().enumerate() {
        assert!(played.moves.len() <= 9);
        assert_eq!(&play_line(&careless, seed as u64), played);
    }
}

#[test]
fn budgets_are_a_rounded_up_share_of_par_and_skills_grow_stronger() {
    assert_eq!(budget(7, &skill(1, 150, 0)), 11);
    assert_eq!(budget(0, &skill(1, 150, 0)), 1);
    for pair in SKILLS.windows(2) {
        let (weaker, stronger) = (&pair[0], &pair[1]);
        assert!(weaker.depth <= stronger.depth, "{}", stronger.name);
        assert!(weaker.budget_percent <= stronger.budget_percent);
        assert!(weaker.mistakes_per_mille >= stronger.mistakes_per_mille);
    }
}
