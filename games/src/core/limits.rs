//! How a search is bounded: a deterministic state cap and a stop request from outside.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A request to stop searching: set from outside (cancellation) or by a wall-clock
/// deadline. Hitting it aborts the whole generation, never just skips a candidate, so
/// that time can never change which level a key gets.
#[derive(Debug, Default)]
pub struct Stop {
    flag: AtomicBool,
    deadline: Option<Instant>,
}

impl Stop {
    pub fn never() -> Self {
        Stop::default()
    }

    pub fn at(deadline: Instant) -> Self {
        Stop {
            flag: AtomicBool::new(false),
            deadline: Some(deadline),
        }
    }

    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    pub fn requested(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A stop that is never requested, for [`Limits::states`].
static NEVER: Stop = Stop {
    flag: AtomicBool::new(false),
    deadline: None,
};

/// Limits of one solver run: a deterministic state cap and the shared stop request.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    pub max_states: u64,
    pub stop: &'a Stop,
}

impl Limits<'static> {
    /// A cap of `max_states` and no stop request: a run bounded by its states alone
    /// (tests, benchmarks, tools).
    pub fn states(max_states: u64) -> Self {
        Limits {
            max_states,
            stop: &NEVER,
        }
    }
}

impl Limits<'_> {
    /// Call once per expanded state with the running count; cheap except every 4096th call.
    #[inline]
    pub fn tick(&self, states: u64) -> Result<(), Exhausted> {
        if states > self.max_states {
            return Err(Exhausted::States(self.max_states));
        }
        if states.is_multiple_of(4096) && self.stop.requested() {
            return Err(Exhausted::Stopped);
        }
        Ok(())
    }
}

/// Why a solver gave up before finishing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// More states than the cap: a deterministic verdict on this level.
    States(u64),
    /// Stopped from outside (deadline or cancellation).
    Stopped,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exhausted::States(cap) => write!(f, "gave up after {cap} states (the state budget)"),
            Exhausted::Stopped => f.write_str("gave up: the time budget ran out"),
        }
    }
}
