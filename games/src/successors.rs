//! Successor rows kept compactly, shared by the state graphs of fruit and skiddy: per
//! state the caller keeps a nibble of move bits (one per direction, in `Dir::ALL` order,
//! whose move leads to a state), the successors of those moves go into one table in id
//! order, and a mark every [`MARK`] states says where its block starts. A state costs 4
//! bytes per move that leads somewhere, and any row is a few popcounts away.

use crate::memory;

/// No successor in that direction.
pub const NONE: u32 = u32::MAX;
/// States per entry of the marks.
pub const MARK: usize = 64;

/// The successor of `u` in each direction, or [`NONE`]. `succ` holds every row in id
/// order, `marks[i]` where the row of state `MARK * i` starts, and `moves(w)` the move
/// bits of state `w`.
#[inline]
pub fn row(succ: &[u32], marks: &[u32], u: usize, moves: impl Fn(usize) -> u32) -> [u32; 4] {
    let block = u / MARK * MARK;
    let before: u32 = (block..u).map(|w| moves(w).count_ones()).sum();
    let mut at = (marks[u / MARK] + before) as usize;
    std::array::from_fn(|d| {
        if moves(u) >> d & 1 == 0 {
            return NONE;
        }
        at += 1;
        succ[at - 1]
    })
}

/// Predecessor lists in compressed rows: the predecessors of `v` are
/// `list[offsets[v]..offsets[v + 1]]`, one entry per edge.
pub struct Preds {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl Preds {
    /// The edges of `rows` states with successors in `succ` (as for [`row`]), reversed,
    /// over `n` states. Each row's length is counted into `offsets[v]`, summed up to each
    /// row's end, then every row is filled backwards from its end: each `offsets[v]` ends
    /// at its row's start, with no second table of fill positions.
    pub fn of_rows(n: usize, rows: usize, succ: &[u32], moves: impl Fn(usize) -> u32) -> Preds {
        let mut offsets: Vec<u32> = memory::zeroed(n + 1);
        for &v in succ {
            offsets[v as usize] += 1;
        }
        let mut sum = 0;
        for count in &mut offsets {
            sum += *count;
            *count = sum;
        }
        let mut list: Vec<u32> = memory::zeroed(succ.len());
        let mut end = succ.len();
        for u in (0..rows).rev() {
            let start = end - moves(u).count_ones() as usize;
            for &v in succ[start..end].iter().rev() {
                offsets[v as usize] -= 1;
                list[offsets[v as usize] as usize] = u as u32;
            }
            end = start;
        }
        Preds { offsets, list }
    }

    pub fn of(&self, v: usize) -> &[u32] {
        &self.list[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}
