//! The exact Tetropica solver.
//!
//! Two facts make it small:
//! - A *minimal* winning set of placements (no placement can be left out) can always be
//!   placed growing from S: order its pieces by where an S–E path through the carved
//!   cells first enters them, and each one touches the cells before it on that path. So
//!   the fewest pieces that win are found by growing the start's empty region one
//!   piece at a time, and when no sub-solution exists every full-hand win is minimal
//!   and found the same way.
//! - Which pieces were placed in which order does not matter, only the carved cells and
//!   the pieces still held: states `(region, hand)` are searched once each.
//!
//! Safe pruning: a state is dropped when the tiles still to carve on the cheapest path
//! to E exceed four per piece still allowed. The path is the cheapest through tiles
//! that some placement of a still-held kind covers (a 0-1 BFS from E, once per set of
//! held kinds): a lower bound, because every carved tile lies inside the start's
//! region and every tile still to carve is covered by a piece still held. A region with
//! no such path at all (connectivity) is dropped by the same test.
//!
//! Solutions are counted as sets of placements: every distinct winning carved region
//! is counted as the number of ways to tile it with the hand that could be the last
//! move of a play (a tile-by-tile exact cover, rarely more than one).

use std::hash::BuildHasher;

use hashbrown::{HashSet, HashTable};
use rustc_hash::FxBuildHasher;

use super::rules::{Board, Hand, KINDS, MAX_HAND, bits, carve_layers, orientations};
use crate::core::{Exhausted, Limits};

/// `solution_count` saturates here: 1 is the answer the tiers care about, 2 says "more".
pub const COUNT_CAP: u64 = 2;

/// One placement of one kind on the board, over destructible tiles only.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub mask: u128,
    /// The cells next to the piece: it is legal when one of them is empty.
    pub halo: u128,
    pub kind: usize,
}

/// Every placement that fits the board's tiles, and for each cell those covering it.
pub struct Table {
    pub list: Vec<Candidate>,
    by_cell: Vec<Vec<u32>>,
    /// Per kind, the tiles some placement of that kind covers.
    covered_by_kind: [u128; KINDS],
}

impl Table {
    pub fn build(board: &Board) -> Table {
        let mut list = Vec::new();
        let (w, h) = (board.width as i32, board.height as i32);
        for kind in 0..KINDS {
            for shape in orientations(kind) {
                let span_x = shape.iter().map(|c| c.0).max().unwrap_or(0);
                let span_y = shape.iter().map(|c| c.1).max().unwrap_or(0);
                for y in 0..h - span_y {
                    for x in 0..w - span_x {
                        let mask = shape.iter().fold(0u128, |m, &(dx, dy)| {
                            m | board.bit((x + dx) as usize, (y + dy) as usize)
                        });
                        if mask & !board.tiles == 0 {
                            let halo = board.neighbours(mask) & !mask;
                            list.push(Candidate { mask, halo, kind });
                        }
                    }
                }
            }
        }
        let mut by_cell = vec![Vec::new(); board.width * board.height];
        let mut covered_by_kind = [0u128; KINDS];
        for (i, candidate) in list.iter().enumerate() {
            for cell in bits(candidate.mask) {
                by_cell[cell].push(i as u32);
            }
            covered_by_kind[candidate.kind] |= candidate.mask;
        }
        Table {
            list,
            by_cell,
            covered_by_kind,
        }
    }

    /// The tiles some placement of a kind in the 7-bit set `kinds` covers.
    pub fn covered(&self, kinds: usize) -> u128 {
        (0..KINDS)
            .filter(|k| kinds >> k & 1 != 0)
            .fold(0, |m, k| m | self.covered_by_kind[k])
    }
}

/// What the solver proved about a level.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The fewest pieces of the hand that join S and E; `None` when no choice does.
    pub min_pieces: Option<u32>,
    /// A play using every piece whose last placement joins S and E (indices into
    /// [`Table::list`], in a legal order); `None` when there is none.
    pub play: Option<Vec<u32>>,
    /// Distinct sets of placements forming such plays, up to [`COUNT_CAP`].
    pub count: u64,
    pub states: u64,
}

pub fn solve(board: &Board, table: &Table, limits: &Limits) -> Result<Solved, Exhausted> {
    let n = board.hand.total();
    if board.joined(0) {
        // Won before any placement: only an empty hand is "all pieces, win at the last".
        return Ok(Solved {
            min_pieces: Some(0),
            play: (n == 0).then(Vec::new),
            count: u64::from(n == 0),
            states: 0,
        });
    }
    let mut search = Search::new(board, table, limits);
    let start = board.flood(board.start, board.empty);
    let min_pieces = match search.fewest(start, n.saturating_sub(1))? {
        Some(fewer) => {
            search.reset();
            search.any_plays(0, board.hand)?;
            Some(fewer)
        }
        None => {
            search.reset();
            if search.hopeful(start, board.hand, n) {
                search.grown_plays(start, board.hand)?;
            }
            (search.count > 0).then_some(n)
        }
    };
    Ok(Solved {
        min_pieces,
        play: search.play,
        count: search.count,
        states: search.states,
    })
}

/// The fewest pieces of the hand that win, if at most `limit` do; for the generator's
/// early rejection of candidates with a sub-solution.
pub fn fewest_pieces(
    board: &Board,
    table: &Table,
    limit: u32,
    limits: &Limits,
) -> Result<Option<u32>, Exhausted> {
    if board.joined(0) {
        return Ok(Some(0));
    }
    let mut search = Search::new(board, table, limits);
    search.fewest(board.flood(board.start, board.empty), limit)
}

/// The states searched once each, `(region, hand)`. The pairs are kept in two arrays and
/// the index holds only their numbers: a pair in a hash set takes a 32-byte slot (the
/// `u128` aligns it to 16), and the arrays take 20 bytes and the index about 6.
#[derive(Default)]
struct Seen {
    regions: Vec<u128>,
    hands: Vec<Hand>,
    index: HashTable<u32>,
}

impl Seen {
    fn hash(region: u128, hand: Hand) -> u64 {
        FxBuildHasher.hash_one((region, hand))
    }

    /// Adds the pair; false when it was already there.
    fn insert(&mut self, region: u128, hand: Hand) -> bool {
        let hash = Self::hash(region, hand);
        let (regions, hands) = (&self.regions, &self.hands);
        let known = |&i: &u32| regions[i as usize] == region && hands[i as usize] == hand;
        if self.index.find(hash, known).is_some() {
            return false;
        }
        let i = u32::try_from(regions.len()).expect("fewer than 2^32 states");
        self.index.insert_unique(hash, i, |&j| {
            Self::hash(regions[j as usize], hands[j as usize])
        });
        self.regions.push(region);
        self.hands.push(hand);
        true
    }

    fn clear(&mut self) {
        self.regions.clear();
        self.hands.clear();
        self.index.clear();
    }
}

struct Search<'a> {
    board: &'a Board,
    table: &'a Table,
    limits: &'a Limits<'a>,
    /// Per 7-bit set of held kinds (empty until first needed): `near[kinds][k]` holds
    /// the cells from which at most k tiles covered by those kinds lead to E.
    near: Vec<Vec<u128>>,
    states: u64,
    seen: Seen,
    /// Fewest-pieces search: the most pieces a new win may use.
    limit: u32,
    best: Option<u32>,
    /// Play search: the placements on the way to the current state.
    path: Vec<u32>,
    play: Option<Vec<u32>>,
    wins: HashSet<u128, FxBuildHasher>,
    count: u64,
}

impl<'a> Search<'a> {
    fn new(board: &'a Board, table: &'a Table, limits: &'a Limits<'a>) -> Self {
        Search {
            board,
            table,
            limits,
            near: vec![Vec::new(); 1 << KINDS],
            states: 0,
            seen: Seen::default(),
            limit: 0,
            best: None,
            path: Vec::new(),
            play: None,
            wins: HashSet::with_hasher(FxBuildHasher),
            count: 0,
        }
    }

    fn reset(&mut self) {
        self.seen.clear();
        self.path.clear();
    }

    fn tick(&mut self) -> Result<(), Exhausted> {
        self.states += 1;
        self.limits.tick(self.states)
    }

    /// Whether the start's `region` can still reach E with at most `pieces` more pieces
    /// of `hand`: some tile next to it is within four tiles a piece of E, counting only
    /// tiles the held kinds can cover.
    fn hopeful(&mut self, region: u128, hand: Hand, pieces: u32) -> bool {
        let pieces = pieces.min(hand.total()) as usize;
        let frontier = self.board.neighbours(region) & self.board.tiles & !region;
        frontier & self.near(hand.kinds())[4 * pieces] != 0
    }

    fn near(&mut self, kinds: usize) -> &[u128] {
        if self.near[kinds].is_empty() {
            let layers = carve_layers(self.board, self.table.covered(kinds));
            let mut within = 0u128;
            self.near[kinds] = (0..=4 * MAX_HAND)
                .map(|k| {
                    within |= layers.get(k).copied().unwrap_or(0);
                    within
                })
                .collect();
        }
        &self.near[kinds]
    }

    /// Whether S and E could still be joined from `carved` with the held kinds.
    fn joinable(&self, carved: u128, hand: Hand) -> bool {
        let open = self.board.empty | carved | self.table.covered(hand.kinds());
        self.board.flood(self.board.start, open) & self.board.end != 0
    }

    /// Every placement of a held piece that touches `region` (the start's empty
    /// region), each once, in a fixed order.
    fn grown(&self, region: u128, hand: Hand) -> impl Iterator<Item = u32> + use<'a> {
        let (board, table) = (self.board, self.table);
        let frontier = board.neighbours(region) & board.tiles & !region;
        bits(frontier).flat_map(move |f| {
            // A placement covering several frontier tiles is taken at the lowest one.
            let lower = frontier & ((1u128 << f) - 1);
            table.by_cell[f].iter().copied().filter(move |&i| {
                let p = &table.list[i as usize];
                p.mask & (region | lower) == 0 && hand.has(p.kind)
            })
        })
    }

    /// The start's region after placing `p`: it grows by the piece and whatever empty
    /// cells the piece connects.
    fn grow(&self, region: u128, p: &Candidate) -> u128 {
        let carved = (region & self.board.tiles) | p.mask;
        self.board.flood(region | p.mask, self.board.empty | carved)
    }

    /// Branch and bound on the number of pieces: the fewest that win, if at most `limit`.
    fn fewest(&mut self, start: u128, limit: u32) -> Result<Option<u32>, Exhausted> {
        self.limit = limit;
        self.best = None;
        if limit > 0 && self.hopeful(start, self.board.hand, limit) {
            self.fewest_from(start, self.board.hand, 0)?;
        }
        Ok(self.best)
    }

    fn fewest_from(&mut self, region: u128, hand: Hand, depth: u32) -> Result<(), Exhausted> {
        self.tick()?;
        for i in self.grown(region, hand) {
            if depth >= self.limit {
                break;
            }
            let p = self.table.list[i as usize];
            let next = self.grow(region, &p);
            if next & self.board.end != 0 {
                self.best = Some(depth + 1);
                self.limit = depth;
                continue;
            }
            let hand = hand.take(p.kind);
            let allowed = self.limit - depth - 1;
            if allowed > 0 && self.hopeful(next, hand, allowed) && self.seen.insert(next, hand) {
                self.fewest_from(next, hand, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Every full-hand win grown from S (valid when no sub-solution exists).
    fn grown_plays(&mut self, region: u128, hand: Hand) -> Result<(), Exhausted> {
        self.tick()?;
        for i in self.grown(region, hand) {
            if self.count >= COUNT_CAP {
                break;
            }
            let p = self.table.list[i as usize];
            let next = self.grow(region, &p);
            let hand = hand.take(p.kind);
            self.path.push(i);
            if next & self.board.end != 0 {
                if hand.is_empty() {
                    self.record_win(next & self.board.tiles)?;
                }
            } else if !hand.is_empty()
                && self.hopeful(next, hand, hand.total())
                && self.seen.insert(next, hand)
            {
                self.grown_plays(next, hand)?;
            }
            self.path.pop();
        }
        Ok(())
    }

    /// Every full-hand play whose last piece makes the join, placing pieces anywhere
    /// legal: the general search for levels that also have a sub-solution.
    fn any_plays(&mut self, carved: u128, hand: Hand) -> Result<(), Exhausted> {
        self.tick()?;
        let (board, table) = (self.board, self.table);
        let empty = board.empty | carved;
        for (i, p) in table.list.iter().enumerate() {
            if self.count >= COUNT_CAP {
                break;
            }
            if !hand.has(p.kind) || p.mask & carved != 0 || p.halo & empty == 0 {
                continue;
            }
            let next = carved | p.mask;
            let hand = hand.take(p.kind);
            let joined = board.joined(next);
            self.path.push(i as u32);
            if hand.is_empty() {
                if joined {
                    self.record_win(next)?;
                }
            } else if !joined && self.joinable(next, hand) && self.seen.insert(next, hand) {
                self.any_plays(next, hand)?;
            }
            self.path.pop();
        }
        Ok(())
    }

    /// A full-hand play ended in a win with these carved tiles: count the sets of
    /// placements that carve exactly them, once per region.
    fn record_win(&mut self, carved: u128) -> Result<(), Exhausted> {
        if !self.wins.insert(carved) {
            return Ok(());
        }
        if self.play.is_none() {
            self.play = Some(self.path.clone());
        }
        let mut chosen = Vec::with_capacity(self.board.hand.total() as usize);
        self.tilings(carved, carved, self.board.hand, &mut chosen)
    }

    /// Exact covers of `rest` by the pieces of `hand`; each complete one counts when some
    /// piece of it can be the last move of a play.
    fn tilings(
        &mut self,
        whole: u128,
        rest: u128,
        hand: Hand,
        chosen: &mut Vec<u128>,
    ) -> Result<(), Exhausted> {
        if self.count >= COUNT_CAP {
            return Ok(());
        }
        self.tick()?;
        if rest == 0 {
            if hand.is_empty() && self.can_end_a_play(whole, chosen) {
                self.count += 1;
            }
            return Ok(());
        }
        let table = self.table;
        let lowest = rest.trailing_zeros() as usize;
        for &i in &table.by_cell[lowest] {
            let p = &table.list[i as usize];
            if p.mask & !rest == 0 && hand.has(p.kind) {
                chosen.push(p.mask);
                self.tilings(whole, rest & !p.mask, hand.take(p.kind), chosen)?;
                chosen.pop();
            }
        }
        Ok(())
    }

    /// Whether the set `chosen` (carving `whole`) can be played with the join made only
    /// by its last piece: without some piece, the rest is placeable and not yet joined.
    fn can_end_a_play(&self, whole: u128, chosen: &[u128]) -> bool {
        chosen.iter().any(|&last| {
            let before = whole & !last;
            self.board.orderable(before) && !self.board.joined(before)
        })
    }
}
