//! Simulated players: one bot for every game, over [`Play`].
//!
//! A bot plays the way a person without the solution does: from the position in front of
//! it, it looks a few moves ahead, within a limited attention ([`SEARCH_NODES`]), and
//! judges each move only by what it sees there: a win within reach, a loss or a stuck
//! board, a position it has already been in, or nothing decisive. A position with a single
//! move is no choice, so the lookahead follows forced lines without spending depth. It
//! plays a move of the best kind it found, at random among equals, and now and then a
//! random move instead (a mistake). It gives up when its move budget, a multiple of par, runs out. It never
//! reads the level's solution or metrics (par aside, which players see) and never runs
//! the game's solver. Everything it draws comes from the [`LevelRng`] it is given.

use std::cmp::{Ordering, Reverse};
use std::collections::HashSet;

use rustc_hash::FxBuildHasher;

use serde::Serialize;

use crate::play::Play;
use crate::rng::LevelRng;

/// How well a bot plays: its lookahead, its patience and its carelessness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Skill {
    pub name: &'static str,
    /// Moves looked ahead from the current position (1: only the next move's result).
    pub depth: u32,
    /// The move budget in percent of par: the bot stops there, unsolved.
    pub budget_percent: u32,
    /// The chance of a random legal move instead of the planned one, per mille of moves.
    pub mistakes_per_mille: u32,
}

/// The graded bots, weakest first.
pub const SKILLS: [Skill; 4] = [
    Skill {
        name: "novice",
        depth: 1,
        budget_percent: 150,
        mistakes_per_mille: 350,
    },
    Skill {
        name: "casual",
        depth: 2,
        budget_percent: 200,
        mistakes_per_mille: 120,
    },
    Skill {
        name: "skilled",
        depth: 3,
        budget_percent: 250,
        mistakes_per_mille: 50,
    },
    Skill {
        name: "expert",
        depth: 5,
        budget_percent: 300,
        mistakes_per_mille: 10,
    },
];

/// Positions a bot may look at before each move, shared equally among the moves it
/// weighs: a person's attention is bounded, whatever the game's branching, and so is
/// the time a simulation takes.
pub const SEARCH_NODES: u32 = 1_000;

/// A bot's play of one level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotPlay<M> {
    /// The moves it played, in the format `check` and `plays` take.
    pub moves: M,
    /// Its move budget on this level: a play is a bot's win when it is won within it.
    pub budget: u32,
    /// Whether the bot saw itself win; the server's replay of `moves` must agree.
    pub won: bool,
}

/// The move budget of a bot of `skill` on a level of `par` (never below one move).
pub fn budget(par: u32, skill: &Skill) -> u32 {
    (par * skill.budget_percent).div_ceil(100).max(1)
}

/// A bot of `skill` plays `level`, whose par is `par`, until it wins, loses, is stuck or
/// has spent its budget.
pub fn play<P: Play>(
    level: &P::Level,
    par: u32,
    skill: &Skill,
    rng: &mut LevelRng,
) -> BotPlay<P::Moves> {
    let (game, mut at) = P::start(level);
    let budget = budget(par, skill);
    // Only asked whether it holds a position: a fast hash, the same answers.
    let mut seen: Seen<P::Position> = HashSet::with_hasher(FxBuildHasher);
    seen.insert(at.clone());
    let mut line = Vec::new();
    while line.len() < budget as usize && !game.won(&at) {
        let moves = game.weighed(&at, skill.depth);
        if moves.is_empty() {
            break;
        }
        let depth = skill.depth.min(budget - line.len() as u32);
        let step = choose(&game, &at, moves, depth, skill, &mut seen, rng);
        let next = game.apply(&at, &step);
        line.push(step);
        let Some(next) = next else { break };
        seen.insert(next.clone());
        at = next;
    }
    BotPlay {
        moves: game.record(&line),
        budget,
        won: game.won(&at),
    }
}

/// The positions of a play and of the lookahead's current line.
type Seen<T> = HashSet<T, FxBuildHasher>;

/// The move a bot plays from `at`: a mistake, or one of the moves whose outlook is best.
fn choose<P: Play>(
    game: &P,
    at: &P::Position,
    mut moves: Vec<P::Move>,
    depth: u32,
    skill: &Skill,
    seen: &mut Seen<P::Position>,
    rng: &mut LevelRng,
) -> P::Move {
    if rng.chance(skill.mistakes_per_mille, 1000) {
        return moves.swap_remove(rng.index(moves.len()));
    }
    let share = (SEARCH_NODES / moves.len() as u32).max(1);
    let mut look = Lookahead {
        game,
        seen,
        nodes: 0,
    };
    let outlooks: Vec<Outlook> = moves
        .iter()
        .map(|step| {
            look.nodes = share;
            look.judge(at, step, depth - 1)
        })
        .collect();
    let best = outlooks.iter().copied().max().expect("moves are not empty");
    let best: Vec<usize> = (0..moves.len()).filter(|&i| outlooks[i] == best).collect();
    moves.swap_remove(best[rng.index(best.len())])
}

/// What a bot sees of a move within its lookahead, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outlook {
    /// Every line lost or got stuck.
    Dead,
    /// The best it leads to is a position already seen in this play.
    Repeat,
    /// Nothing decisive within reach.
    Open,
    /// A win in this many moves, the fewer the better.
    Win(Reverse<u32>),
}

impl Outlook {
    /// The outlook one move earlier.
    fn later(self) -> Outlook {
        match self {
            Outlook::Win(Reverse(n)) => Outlook::Win(Reverse(n + 1)),
            other => other,
        }
    }
}

/// A depth-limited search that stops looking when its node allowance is spent.
struct Lookahead<'a, P: Play> {
    game: &'a P,
    /// The play's positions and the search's current line.
    seen: &'a mut Seen<P::Position>,
    nodes: u32,
}

impl<P: Play> Lookahead<'_, P> {
    /// The outlook of playing `step` at `at`, then looking `depth` moves further.
    fn judge(&mut self, at: &P::Position, step: &P::Move, depth: u32) -> Outlook {
        if self.nodes == 0 {
            return Outlook::Open;
        }
        self.nodes -= 1;
        match self.game.apply(at, step) {
            None => Outlook::Dead,
            Some(next) if self.game.won(&next) => Outlook::Win(Reverse(1)),
            Some(next) if self.seen.contains(&next) => Outlook::Repeat,
            Some(next) => self.outlook(next, depth).later(),
        }
    }

    /// The best outlook among the moves from `at`, `depth` moves ahead. A stuck position
    /// is seen even at the horizon; a position with a single move is no choice, so
    /// looking through it costs no depth (a forced line is followed to its end, within
    /// the node allowance).
    fn outlook(&mut self, at: P::Position, depth: u32) -> Outlook {
        let moves = self.game.moves(&at);
        if moves.is_empty() {
            return Outlook::Dead;
        }
        let forced = moves.len() == 1;
        if depth == 0 && !forced {
            return Outlook::Open;
        }
        let depth = if forced { depth } else { depth - 1 };
        self.seen.insert(at.clone());
        let mut best = Outlook::Dead;
        for step in &moves {
            let outlook = self.judge(&at, step, depth);
            if outlook.cmp(&best) == Ordering::Greater {
                best = outlook;
            }
            if best == Outlook::Win(Reverse(1)) {
                break;
            }
        }
        self.seen.remove(&at);
        best
    }
}

#[cfg(test)]
mod tests;
