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

/// The length of a row with move bits `moves`: the popcount of the nibble, from a table
/// packed in one word (without the POPCNT instruction a `count_ones` is a dozen
/// instructions, and these crates are built for the baseline x86-64).
#[inline(always)]
pub fn row_len(moves: u32) -> usize {
    const COUNTS: u64 = 0x4332_3221_3221_2110;
    (COUNTS >> (4 * moves) & 0xF) as usize
}

/// Where the row of `u` starts in `succ` (as for [`row`]).
#[inline]
pub fn row_start(marks: &[u32], u: usize, moves: impl Fn(usize) -> u32) -> usize {
    let block = u / MARK * MARK;
    marks[u / MARK] as usize + (block..u).map(|w| row_len(moves(w))).sum::<usize>()
}

/// The successor of `u` in each direction, or [`NONE`]. `succ` holds every row in id
/// order, `marks[i]` where the row of state `MARK * i` starts, and `moves(w)` the move
/// bits of state `w`.
#[inline]
pub fn row(succ: &[u32], marks: &[u32], u: usize, moves: impl Fn(usize) -> u32) -> [u32; 4] {
    let mut at = row_start(marks, u, &moves);
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
    /// The edges of the first `rows` of `n` states with successors in `succ` (as for
    /// [`row`]), reversed. Each row's length is counted two places up, the counts summed,
    /// then the rows are filled going up the ids, each from the place one up of its
    /// predecessor's count: after the fill `offsets[v + 1]` is where row v ends, with no
    /// second table of fill positions.
    pub fn of_rows(n: usize, rows: usize, succ: &[u32], moves: impl Fn(usize) -> u32) -> Preds {
        let mut offsets: Vec<u32> = memory::zeroed(n + 2);
        for &v in succ {
            offsets[v as usize + 2] += 1;
        }
        let mut sum = 0;
        for count in &mut offsets {
            sum += *count;
            *count = sum;
        }
        let mut list: Vec<u32> = memory::zeroed(succ.len());
        let mut row = 0;
        for u in 0..rows {
            let end = row + row_len(moves(u));
            for &v in &succ[row..end] {
                let fill = &mut offsets[v as usize + 1];
                list[*fill as usize] = u as u32;
                *fill += 1;
            }
            row = end;
        }
        offsets.pop();
        Preds { offsets, list }
    }

    pub fn of(&self, v: usize) -> &[u32] {
        &self.list[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}
