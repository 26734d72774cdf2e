//! Hints: what a player should do next from the position some moves reach.

use schemars::JsonSchema;
use serde::Serialize;

use super::limits::Exhausted;
use super::moves::MoveList;
use super::replay::Status;
use super::rule_error::RuleError;

/// What a player should do next from the position some moves reach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Hint<M> {
    /// How the moves ended, as `check` says.
    pub status: Status,
    /// Moves played until the level was won or lost (or all of them), as `check` says.
    pub moves_used: u32,
    /// Moves (links, pieces) still needed by the best line: 0 when won, `null` when no
    /// win can be reached from the position.
    pub distance: Option<u32>,
    /// One best next move, in the `moves` format, to append to the moves; `null` when
    /// won or at a dead end.
    pub next: Option<M>,
    /// At a dead end: the fewest moves to take back from the end of `moves` to reach a
    /// position that can still be won (`null` otherwise, or when even the start cannot).
    pub undo: Option<u32>,
    /// Games of links and pieces, at a dead end: the index in `moves` of the first one
    /// that contradicts every solution (`null` otherwise and in other games).
    pub conflict: Option<u32>,
}

/// Why a hint could not be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HintError {
    /// The moves break a rule (as in `check`).
    Rule(RuleError),
    /// A search ran out of its budget.
    GaveUp(Exhausted),
    /// The game answers from a level's one solution, and this level has more than one
    /// (no served level does).
    NotUnique,
}

impl From<RuleError> for HintError {
    fn from(e: RuleError) -> Self {
        HintError::Rule(e)
    }
}

impl From<Exhausted> for HintError {
    fn from(e: Exhausted) -> Self {
        HintError::GaveUp(e)
    }
}

/// The hint for moves that replayed to `status` after `moves_used` of them, given
/// `best_line`: the moves still needed to win from a prefix of `moves`, `None` when no
/// win can be reached from it. `names_conflict`: whether the hint names the first move
/// that contradicts every solution ([`Hint::conflict`]).
pub(super) fn hint_from<M: MoveList>(
    status: Status,
    moves_used: u32,
    moves: &M,
    names_conflict: bool,
    best_line: impl Fn(&M) -> Result<Option<M>, HintError>,
) -> Result<Hint<M>, HintError> {
    let used = moves_used as usize;
    let line = match status {
        Status::Won => Some(moves.prefix(0)),
        Status::Lost => None,
        Status::Unfinished => best_line(&moves.prefix(used))?,
    };
    let mut hint = Hint {
        status,
        moves_used,
        distance: None,
        next: None,
        undo: None,
        conflict: None,
    };
    match line {
        Some(line) => {
            hint.distance = Some(line.count() as u32);
            hint.next = (line.count() > 0).then(|| line.prefix(1));
        }
        None => {
            let winnable = |n: usize| Ok(best_line(&moves.prefix(n))?.is_some());
            let kept = longest_winnable_prefix(used, winnable)?;
            hint.undo = kept.map(|k| (moves.count() - k) as u32);
            hint.conflict = kept.filter(|_| names_conflict).map(|k| k as u32);
        }
    }
    Ok(hint)
}

/// The longest prefix of the first `used` moves from which a win can still be reached,
/// as its length; `None` when not even the start can be won. Winnable prefixes are
/// closed under shortening (the moves between lead from the shorter to the longer), so
/// bisection finds the boundary.
fn longest_winnable_prefix(
    used: usize,
    winnable: impl Fn(usize) -> Result<bool, HintError>,
) -> Result<Option<usize>, HintError> {
    if used == 0 || !winnable(0)? {
        return Ok(None);
    }
    // Invariant: `lo` moves can still win, `hi` moves cannot.
    let (mut lo, mut hi) = (0, used);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if winnable(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}
