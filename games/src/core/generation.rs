//! What the generation loop works with: a tier's parameters and acceptance window, the
//! solver's analysis of a candidate, and why a candidate was thrown away.

use serde::Serialize;

use super::limits::Exhausted;

/// A tier: the generator's parameters and the acceptance window on the solver's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Tier<P> {
    pub params: P,
    pub par_min: u32,
    /// `None`: no upper bound.
    pub par_max: Option<u32>,
    /// Other acceptance conditions, in words (the code is in `Puzzle::accept`).
    pub requires: Vec<&'static str>,
    /// Candidates tried before the key is declared unservable.
    pub max_attempts: u32,
    /// States one analysis may expand before the candidate is rejected.
    pub max_states: u64,
}

impl<P> Tier<P> {
    pub fn par_in_window(&self, par: u32) -> bool {
        par >= self.par_min && self.par_max.is_none_or(|max| par <= max)
    }
}

/// The solver's findings on one level.
#[derive(Clone, Debug)]
pub struct Analysis<S, M> {
    /// The optimal value the game defines; `None` when the level cannot be won.
    pub par: Option<u32>,
    /// One optimal solution, present exactly when `par` is.
    pub solution: Option<S>,
    /// States the solver expanded.
    pub states: u64,
    /// Optimal solutions counted, saturating at the game's `SOLUTION_COUNT_CAP`.
    pub solution_count: u64,
    /// The game's own figures.
    pub extra: M,
}

/// Why the generator threw a candidate away before (or instead of) analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The candidate is unusable; the reason is counted in the metrics.
    Candidate(&'static str),
    /// A stop was requested: abort the whole generation.
    Stopped,
}

impl From<Exhausted> for Rejection {
    fn from(e: Exhausted) -> Self {
        match e {
            Exhausted::States(_) => Rejection::Candidate("state budget"),
            Exhausted::Stopped => Rejection::Stopped,
        }
    }
}
