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
    /// Expanded states between two looks at the stop request: it reads the clock.
    pub const STOP_CHECKS: u64 = 4096;

    /// Call once per expanded state with the running count; cheap except every
    /// [`Limits::STOP_CHECKS`]th call.
    #[inline]
    pub fn tick(&self, states: u64) -> Result<(), Exhausted> {
        if states > self.max_states {
            return Err(Exhausted::States(self.max_states));
        }
        if states.is_multiple_of(Self::STOP_CHECKS) && self.stop.requested() {
            return Err(Exhausted::Stopped);
        }
        Ok(())
    }

    /// [`Limits::tick`]'s cap alone, for a search that counts its states by stretches
    /// instead of one at a time: it fails when `states` are over the cap. Called with
    /// the count at a stretch's end, before the stretch (a search that knows it then) or
    /// after it, it fails where `tick` would have failed within the stretch; a failed
    /// search returns the error alone, so where in the stretch makes no difference.
    pub fn check_cap(&self, states: u64) -> Result<(), Exhausted> {
        if states > self.max_states {
            return Err(Exhausted::States(self.max_states));
        }
        Ok(())
    }

    /// [`Limits::tick`]'s stop request alone, for a search that checks its cap with
    /// [`Limits::check_cap`]; call it every [`Limits::STOP_CHECKS`] states or so.
    pub fn check_stop(&self) -> Result<(), Exhausted> {
        if self.stop.requested() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_checked_by_stretches_fails_where_ticking_would() {
        let limits = Limits::states(3);
        for states in 1..=3 {
            assert_eq!(
                (limits.tick(states), limits.check_cap(states)),
                (Ok(()), Ok(()))
            );
        }
        assert_eq!(limits.tick(4), Err(Exhausted::States(3)));
        assert_eq!(limits.check_cap(4), Err(Exhausted::States(3)));
    }

    #[test]
    fn a_stop_request_is_seen_by_check_stop() {
        let stop = Stop::never();
        let limits = Limits {
            max_states: 10,
            stop: &stop,
        };
        assert_eq!(limits.check_stop(), Ok(()));
        stop.cancel();
        assert_eq!(limits.check_stop(), Err(Exhausted::Stopped));
    }
}
