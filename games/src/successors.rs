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
    // Inlined: as a call of its own, fruit's copy measured 0.1 M instructions more.
    #[inline(always)]
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

/// Predecessors as chains through edge slots, placed in one pass over the rows. State
/// `u` owns the four cells from `4 * (u + 1)`, one per move of its row, so that a cell
/// number (a slot) names its state and no slot is 0. Each state's chain starts at a cell
/// of its own after the slots, which holds the slot of the last move leading to it; a
/// slot's cell holds the slot of the move before it, and 0 ends the chain. [`Preds`]
/// counts every edge before placing it; this places each edge once, for 20 bytes a state
/// (where [`Preds`] takes 4 a state and 4 an edge). The heads share the slots' table: a
/// second table of 4 bytes a state was cleared by `calloc` (4.6 M instructions on
/// skiddy's bench level), where one this large comes zeroed from the kernel.
pub struct PredChains {
    cells: Vec<u32>,
    /// Where the states' own cells start.
    heads: usize,
}

impl PredChains {
    /// The edges of `n` states with successors in `succ` (as for [`row`]), reversed;
    /// `lens` gives the lengths of the rows (the states with rows), in id order.
    pub fn of_rows(
        n: usize,
        succ: &[u32],
        lens: impl ExactSizeIterator<Item = usize>,
    ) -> PredChains {
        let heads = 4 * (lens.len() + 1);
        let mut cells: Vec<u32> = memory::zeroed(heads + n);
        let (slots, first) = cells.split_at_mut(heads);
        let mut edges = succ;
        let rows = slots[4..].chunks_exact_mut(4).zip(lens);
        for (own, (slots, len)) in (4..).step_by(4).zip(rows) {
            let (row, rest) = edges.split_at(len);
            edges = rest;
            // Four steps at most, each leaving when the row does: a loop that unrolls.
            for (k, next) in slots.iter_mut().enumerate() {
                let Some(&v) = row.get(k) else { break };
                let head = &mut first[v as usize];
                *next = *head;
                *head = own + k as u32;
            }
        }
        PredChains { cells, heads }
    }

    /// The predecessors of `v`, once per move that leads to it, the latest row first.
    #[inline(always)]
    pub fn of(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        let mut cell = self.heads + v;
        std::iter::from_fn(move || {
            cell = self.cells[cell] as usize;
            (cell / 4).checked_sub(1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::LevelRng;

    /// Random rows: per state a nibble of move bits and a successor per bit.
    fn random_rows(rng: &mut LevelRng, n: usize) -> (Vec<u32>, Vec<u32>) {
        let moves: Vec<u32> = (0..n).map(|_| rng.index(16) as u32).collect();
        let edges = moves.iter().map(|&m| row_len(m)).sum();
        let succ = (0..edges).map(|_| rng.index(n) as u32).collect();
        (moves, succ)
    }

    /// The chains hold every state's predecessors, as many times as the lists do.
    #[test]
    fn chains_hold_the_predecessor_lists() {
        let mut rng = LevelRng::from_u64(5);
        for n in [1, 2, 3, 64, 65, 200, 1_000] {
            let (moves, succ) = random_rows(&mut rng, n);
            let lists = Preds::of_rows(n, n, &succ, |u| moves[u]);
            let lens = moves.iter().map(|&m| row_len(m));
            let chains = PredChains::of_rows(n, &succ, lens);
            for v in 0..n {
                let mut chained: Vec<usize> = chains.of(v).collect();
                chained.sort_unstable();
                let listed: Vec<usize> = lists.of(v).iter().map(|&u| u as usize).collect();
                assert_eq!(chained, listed, "{n} states, state {v}");
            }
        }
    }

    /// A hand-worked graph: 0 → 1, 2; 1 → 2; 2 → 0, 1, 2 (a move of 2 leads back to it).
    #[test]
    fn chains_by_hand() {
        let (moves, succ) = ([0b0011, 0b1000, 0b1101], [1, 2, 2, 0, 1, 2]);
        let chains = PredChains::of_rows(3, &succ, moves.iter().map(|&m| row_len(m)));
        let of = |v| chains.of(v).collect::<Vec<_>>();
        assert_eq!((of(0), of(1), of(2)), (vec![2], vec![2, 0], vec![2, 1, 0]));
    }
}
