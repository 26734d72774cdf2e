//! Fruit Dating rules (games/src/fruit/README.md) on bitboards: one `u64` per fruit colour and one for
//! the stones, cell (x, y) at bit `y * 8 + x`.

use super::graph::Step;
use crate::core::{Dir, RuleError};
use crate::grid;

use super::{Arrow, FruitLevel};

pub const STRIDE: usize = 8;
const NONE: u8 = u8::MAX;
pub const FRUIT_LETTERS: &str = "abcdefgh";

#[inline]
pub fn bit(cell: usize) -> u64 {
    1u64 << cell
}

pub fn cell_of(x: usize, y: usize) -> usize {
    y * STRIDE + x
}

/// Per direction (in `Dir::ALL` order), the rotation that moves every bit one cell along
/// it; `can_step` keeps the bits that would wrap around the board out of it.
const SHIFTS: [u32; 4] = [56, 8, 63, 1];

/// Largest number of bit planes a board's kinds need: kinds 0 to 8 (eight colours and
/// the stones) in four bits.
const MAX_PLANES: usize = 4;

/// A board of `W` bitboards (the colours, then the stones) during a slide: where the
/// movables are, and each movable's kind (its word's index) in binary, one bitboard per
/// bit. Every movable steps with all its bits, so a slide steps the occupancy and the
/// planes (two for three colours) instead of every word.
#[derive(Clone, Copy)]
struct Kinds<const W: usize> {
    occupied: u64,
    planes: [u64; MAX_PLANES],
}

impl<const W: usize> Kinds<W> {
    /// Planes in use: enough bits for the largest kind, the stones' `W - 1`.
    const PLANES: usize = (usize::BITS - (W - 1).leading_zeros()) as usize;

    #[inline(always)]
    fn of(words: &[u64; W]) -> Self {
        let mut planes = [0u64; MAX_PLANES];
        for (kind, &word) in words.iter().enumerate() {
            for (bit, plane) in planes[..Self::PLANES].iter_mut().enumerate() {
                if kind >> bit & 1 != 0 {
                    *plane |= word;
                }
            }
        }
        Kinds {
            occupied: words.iter().fold(0, |acc, w| acc | w),
            planes,
        }
    }

    /// Moves the movables of `movers` one cell along `shift`, onto cells that are free.
    #[inline(always)]
    fn step(&mut self, movers: u64, shift: u32) {
        // Movers land on free cells, so one XOR both clears where they were and sets
        // where they land.
        self.occupied ^= movers ^ movers.rotate_left(shift);
        for plane in &mut self.planes[..Self::PLANES] {
            let leaving = *plane & movers;
            *plane ^= leaving ^ leaving.rotate_left(shift);
        }
    }

    /// Moves the movable on cell `from` to the free cell `to`.
    #[inline(always)]
    fn pull(&mut self, from: u64, to: u64) {
        self.occupied ^= from | to;
        for plane in &mut self.planes[..Self::PLANES] {
            if *plane & from != 0 {
                *plane ^= from | to;
            }
        }
    }

    /// The movables of kind `kind`: on every plane of its set bits and on none of the
    /// others. Planes hold only occupied cells, so the occupancy is needed only for kind
    /// 0, which is on no plane.
    #[inline(always)]
    fn of_kind(&self, kind: usize) -> u64 {
        let (mut on_all, mut on_any_other) = (if kind == 0 { self.occupied } else { !0 }, 0);
        for (bit, &plane) in self.planes[..Self::PLANES].iter().enumerate() {
            if kind >> bit & 1 != 0 {
                on_all &= plane;
            } else {
                on_any_other |= plane;
            }
        }
        on_all & !on_any_other
    }

    #[inline(always)]
    fn stones(&self) -> u64 {
        self.of_kind(W - 1)
    }

    /// Back to one bitboard per kind.
    #[inline(always)]
    fn write(&self, words: &mut [u64; W]) {
        for (kind, word) in words.iter_mut().enumerate() {
            *word = self.of_kind(kind);
        }
    }
}

/// Why a tilt lost the level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    Sank,
    Eaten,
    PulledIntoMud,
}

impl Loss {
    pub fn describe(self) -> &'static str {
        match self {
            Loss::Sank => "a fruit slid into mud and sank",
            Loss::Eaten => "a fruit stopped in front of a hedgehog and was eaten",
            Loss::PulledIntoMud => "an anteater pulled a fruit onto mud and it sank",
        }
    }
}

/// An anteater's tongue: the cells it scans, up to the first static obstacle, as a mask.
#[derive(Clone, Copy, Debug)]
struct Tongue {
    ray: u64,
    /// The cell right in front of the anteater (0 when the tongue has no room).
    front: u64,
    /// Whether the ray runs toward higher bits (facing R or D): its nearest cell is then
    /// the lowest set bit, otherwise the highest.
    toward_high_bits: bool,
    front_is_mud: bool,
}

/// The static part of a level, compiled for fast tilts.
#[derive(Clone, Debug)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    /// Fruit colours in play, in letter order; state row `i` is colour `letters[i]`.
    pub letters: Vec<char>,
    solid: u64,
    mud: u64,
    /// Cells whose neighbour in direction d is a hedgehog.
    facing_hedgehog: [u64; 4],
    /// Per direction: the cells a movable may leave one step in d when the next cell is
    /// empty (walls, beasts, the grid's edge and one-ways keep it; mud does not).
    can_step: [u64; 4],
    /// Per direction: the cells from which that step lands on mud.
    steps_onto_mud: [u64; 4],
    /// Per direction: the cells from which a slide may reach mud (steps that
    /// `can_step` allows, ignoring the movables). A movable slides along its own line
    /// only, so a tilt with none of these occupied cannot sink a fruit.
    upstream_of_mud: [u64; 4],
    /// Neighbour cell per direction, `NONE` outside the grid.
    next: [[u8; 64]; 4],
    tongues: Vec<Tongue>,
}

impl Board {
    /// Words per state: one per colour, then the stones.
    pub fn stride(&self) -> usize {
        self.letters.len() + 1
    }

    /// Compiles a level that passed [`validate`]; returns the board and the start state.
    pub fn compile(level: &FruitLevel) -> (Board, Vec<u64>) {
        let (w, h) = (level.width, level.height);
        let mut letters: Vec<char> = grid::cells(&level.grid)
            .map(|(_, _, c)| c)
            .filter(|c| FRUIT_LETTERS.contains(*c))
            .collect();
        letters.sort_unstable();
        letters.dedup();
        let mut state = vec![0u64; letters.len() + 1];
        let (mut solid, mut mud, mut hedgehogs) = (0u64, 0u64, 0u64);
        for (x, y, c) in grid::cells(&level.grid) {
            let b = bit(cell_of(x, y));
            match c {
                '#' | 'A' => solid |= b,
                'H' => {
                    solid |= b;
                    hedgehogs |= b;
                }
                '~' => mud |= b,
                'o' => state[letters.len()] |= b,
                c if FRUIT_LETTERS.contains(c) => {
                    let i = letters.iter().position(|&l| l == c).expect("letter listed");
                    state[i] |= b;
                }
                _ => {}
            }
        }
        let next = neighbour_table(w, h);
        let mut board = Board {
            width: w,
            height: h,
            letters,
            solid,
            mud,
            facing_hedgehog: [0; 4],
            can_step: [0; 4],
            steps_onto_mud: [0; 4],
            upstream_of_mud: [0; 4],
            next,
            tongues: Vec::new(),
        };
        for d in Dir::ALL {
            for cell in 0..64 {
                let n = board.next[d.index()][cell];
                if n != NONE && hedgehogs & bit(n as usize) != 0 {
                    board.facing_hedgehog[d.index()] |= bit(cell);
                }
            }
        }
        board.compile_steps(&level.one_ways);
        let mut anteaters = level.anteaters.clone();
        anteaters.sort_by_key(|a| (a.y, a.x));
        // A tongue with room for only the cell in front never pulls: whatever it sees
        // first is already there.
        board.tongues = anteaters
            .iter()
            .map(|a| board.tongue(a))
            .filter(|t| t.ray != t.front)
            .collect();
        (board, state)
    }

    /// Where movables may step, given the one-ways, and the mud's masks.
    fn compile_steps(&mut self, one_ways: &[Arrow]) {
        let mut no_exit = [0u64; 4];
        for one_way in one_ways {
            // Crossing from the neighbour back into (x, y) is the forbidden direction.
            let from = self.next[one_way.dir.index()][cell_of(one_way.x, one_way.y)];
            if from != NONE {
                no_exit[one_way.dir.opposite().index()] |= bit(from as usize);
            }
        }
        self.can_step = Dir::ALL.map(|d| self.steppable(d, no_exit[d.index()]));
        self.steps_onto_mud = self.mud_entries();
        self.upstream_of_mud = Dir::ALL.map(|d| self.upstream_of(d));
    }

    /// Per direction: the cells from which a step lands on mud.
    fn mud_entries(&self) -> [u64; 4] {
        Dir::ALL.map(|d| self.can_step[d.index()] & self.mud.rotate_right(SHIFTS[d.index()]))
    }

    /// [`Board::upstream_of_mud`] in direction `d`: the cells that step onto mud, then
    /// those that step onto them, and so on.
    fn upstream_of(&self, d: Dir) -> u64 {
        let (shift, can_step) = (SHIFTS[d.index()], self.can_step[d.index()]);
        let mut upstream = self.steps_onto_mud[d.index()];
        loop {
            let wider = upstream | can_step & upstream.rotate_right(shift);
            if wider == upstream {
                return upstream;
            }
            upstream = wider;
        }
    }

    /// Cells from which a movable can step once in `d`: the next cell is on the grid and
    /// not solid, and no one-way forbids the crossing.
    fn steppable(&self, d: Dir, no_exit: u64) -> u64 {
        let next = &self.next[d.index()];
        (0..64)
            .filter(|&cell| {
                no_exit & bit(cell) == 0
                    && next[cell] != NONE
                    && self.solid & bit(next[cell] as usize) == 0
            })
            .fold(0, |mask, cell| mask | bit(cell))
    }

    fn tongue(&self, anteater: &Arrow) -> Tongue {
        let (mut ray, mut front) = (0u64, 0u64);
        let mut at = self.next[anteater.dir.index()][cell_of(anteater.x, anteater.y)];
        while at != NONE && self.solid & bit(at as usize) == 0 {
            if ray == 0 {
                front = bit(at as usize);
            }
            ray |= bit(at as usize);
            at = self.next[anteater.dir.index()][at as usize];
        }
        Tongue {
            ray,
            front,
            toward_high_bits: matches!(anteater.dir, Dir::R | Dir::D),
            front_is_mud: self.mud & front != 0,
        }
    }

    /// One tilt of `state` in direction `d`, written to `out` (rules steps 1-5 of
    /// games/src/fruit/README.md), for a solver whose state width is a constant.
    /// After [`Step::Same`] and [`Step::Lost`], `out` holds no particular board.
    #[inline(always)]
    pub fn tilt<const W: usize>(&self, state: &[u64; W], d: Dir, out: &mut [u64; W]) -> Step {
        Self::step_of(self.resolve::<false, false, W>(Kinds::of(state), d, out))
    }

    /// [`Board::tilt`] with the rows' slides by `pext` and `pdep` (see
    /// [`Board::slide_in_order`]): the same tilt.
    ///
    /// # Safety
    /// The CPU must have BMI2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn tilt_with_bmi2<const W: usize>(
        &self,
        state: &[u64; W],
        d: Dir,
        out: &mut [u64; W],
    ) -> Step {
        Self::step_of(self.resolve::<false, true, W>(Kinds::of(state), d, out))
    }

    #[inline(always)]
    fn step_of(verdict: Result<bool, Loss>) -> Step {
        match verdict {
            Ok(true) => Step::Moved,
            Ok(false) => Step::Same,
            Err(_) => Step::Lost,
        }
    }

    /// One tilt: `Ok(changed)`, or why it lost. A board that changed nothing in steps 1
    /// and 4 cannot match a pair in step 5 (no reachable board has a matching pair), so
    /// "nothing moved" means "not a move".
    pub fn tilt_explained(&self, state: &[u64], d: Dir, out: &mut [u64]) -> Result<bool, Loss> {
        macro_rules! by_width {
            ($($w:literal)*) => {
                match state.len() {
                    $($w => {
                        let state: &[u64; $w] = state.try_into().expect("width matched");
                        let out = out.try_into().expect("as wide as the state");
                        self.resolve::<true, false, $w>(Kinds::of(state), d, out)
                    })*
                    n => unreachable!("a state has one word per colour (at most 8) plus one, not {n}"),
                }
            };
        }
        by_width!(1 2 3 4 5 6 7 8 9)
    }

    /// The tilt itself, inlined into each caller so that the constant state width
    /// unrolls its loops over the words. Steps 1 to 4 work on the slide's planes; the
    /// words are written only for a board that changed (or, with `WHOLE_BOARD`, for any
    /// board that did not lose). Without `WHOLE_BOARD`, a tilt that moved nothing stops
    /// before step 5: its verdict is already known, only `out` would differ. With
    /// `BMI2` (only from [`Board::tilt_with_bmi2`]), a row's slide that cannot sink a
    /// fruit moves the occupancy alone.
    #[inline(always)]
    fn resolve<const WHOLE_BOARD: bool, const BMI2: bool, const W: usize>(
        &self,
        mut kinds: Kinds<W>,
        d: Dir,
        out: &mut [u64; W],
    ) -> Result<bool, Loss> {
        let moved = if kinds.occupied & self.upstream_of_mud[d.index()] == 0 {
            #[cfg(target_arch = "x86_64")]
            if BMI2 && matches!(d, Dir::L | Dir::R) {
                // SAFETY: `BMI2` is set only by `tilt_with_bmi2`, whose caller checked
                // that the CPU has it.
                unsafe { self.slide_in_order(&mut kinds, d) }
            } else {
                self.slide::<false, W>(&mut kinds, d)?
            }
            #[cfg(not(target_arch = "x86_64"))]
            self.slide::<false, W>(&mut kinds, d)?
        } else {
            self.slide::<true, W>(&mut kinds, d)?
        };
        let fruit = kinds.occupied & !kinds.stones();
        if fruit & self.facing_hedgehog[d.index()] != 0 {
            return Err(Loss::Eaten);
        }
        let pulled = self.pull_tongues(&mut kinds)?;
        if !WHOLE_BOARD && !(moved | pulled) {
            return Ok(false);
        }
        kinds.write(out);
        for word in &mut out[..W - 1] {
            if has_adjacent_pair(*word) {
                *word = 0;
            }
        }
        Ok(moved | pulled)
    }

    /// Steps 1 and 2 on `kinds` in place; `Ok(true)` when anything moved. Every movable
    /// whose next cell is free steps once, all at the same time, until none can: this
    /// packs each run of movables against what stops it exactly as sliding them one by
    /// one, farthest first, would, and no movable overtakes another. A fruit that steps
    /// onto mud at any point sinks (stones cross mud freely); without `MUD` (no movable
    /// upstream of mud along `d`) the loop skips that check.
    #[inline(always)]
    fn slide<const MUD: bool, const W: usize>(
        &self,
        kinds: &mut Kinds<W>,
        d: Dir,
    ) -> Result<bool, Loss> {
        let (shift, can_step) = (SHIFTS[d.index()], self.can_step[d.index()]);
        let mut moved = false;
        loop {
            let movers = kinds.occupied & can_step & !kinds.occupied.rotate_right(shift);
            if movers == 0 {
                return Ok(moved);
            }
            moved = true;
            let onto_mud = movers & self.steps_onto_mud[d.index()];
            if MUD && onto_mud != 0 && onto_mud & !kinds.stones() != 0 {
                return Err(Loss::Sank);
            }
            kinds.step(movers, shift);
        }
    }

    /// Step 1 along a row (L or R) where no movable can reach mud: the occupancy slides
    /// alone, then each plane follows with `pext` and `pdep`, since no movable leaves its
    /// row or passes another, so the movables keep their reading order. `true` when
    /// anything moved.
    ///
    /// # Safety
    /// The CPU must have BMI2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn slide_in_order<const W: usize>(&self, kinds: &mut Kinds<W>, d: Dir) -> bool {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        let (shift, can_step) = (SHIFTS[d.index()], self.can_step[d.index()]);
        let before = kinds.occupied;
        let mut occupied = before;
        loop {
            let movers = occupied & can_step & !occupied.rotate_right(shift);
            if movers == 0 {
                break;
            }
            occupied ^= movers ^ movers.rotate_left(shift);
        }
        if occupied == before {
            return false;
        }
        for plane in &mut kinds.planes[..Kinds::<W>::PLANES] {
            // SAFETY: the caller checked that the CPU has BMI2.
            *plane = unsafe { _pdep_u64(_pext_u64(*plane, before), occupied) };
        }
        kinds.occupied = occupied;
        true
    }

    /// Step 4: each anteater in reading order pulls the first fruit its tongue sees;
    /// `Ok(true)` when one did.
    #[inline(always)]
    fn pull_tongues<const W: usize>(&self, kinds: &mut Kinds<W>) -> Result<bool, Loss> {
        let mut pulled = false;
        for tongue in &self.tongues {
            // A movable right in front is the first it sees, and stays (most tilts of a
            // level with an anteater find one there).
            let seen = tongue.ray & kinds.occupied;
            if seen == 0 || seen & tongue.front != 0 {
                continue;
            }
            let first = if tongue.toward_high_bits {
                seen & seen.wrapping_neg()
            } else {
                1u64 << (63 - seen.leading_zeros())
            };
            if kinds.stones() & first != 0 {
                continue;
            }
            pulled = true;
            kinds.pull(first, tongue.front);
            if tongue.front_is_mud {
                return Err(Loss::PulledIntoMud);
            }
        }
        Ok(pulled)
    }

    pub fn is_win(&self, state: &[u64]) -> bool {
        state[..self.letters.len()].iter().all(|&w| w == 0)
    }

    pub fn pairs_left(&self, state: &[u64]) -> u32 {
        state[..self.letters.len()]
            .iter()
            .filter(|&&w| w != 0)
            .count() as u32
    }

    /// Whether the grid format can express this board: it has no symbol for a stone
    /// resting on mud.
    pub fn expressible(&self, state: &[u64]) -> bool {
        self.stones_expressible(state[self.letters.len()])
    }

    /// [`Board::expressible`] of a board with these stones.
    pub fn stones_expressible(&self, stones: u64) -> bool {
        stones & self.mud == 0
    }
}

/// The level with its fruit and stones where `state` has them: the grid without them,
/// then each movable written on its cell (a cleared pair simply is not there).
pub fn render(level: &FruitLevel, board: &Board, state: &[u64]) -> FruitLevel {
    let mut rows: Vec<Vec<char>> = level
        .grid
        .iter()
        .map(|row| {
            row.chars()
                .map(|c| {
                    if FRUIT_LETTERS.contains(c) || c == 'o' {
                        '.'
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect();
    for (i, &word) in state.iter().enumerate() {
        let c = board.letters.get(i).copied().unwrap_or('o');
        for cell in (0..64).filter(|&cell| word & bit(cell) != 0) {
            rows[cell / 8][cell % 8] = c;
        }
    }
    FruitLevel {
        grid: rows.into_iter().map(String::from_iter).collect(),
        ..level.clone()
    }
}

/// Bits of a colour's code in a packed key: its two cells, 6 bits each.
const PAIR_BITS: u32 = 12;
/// Stones shifted down by this many bits lose nothing: the cells below (row 0 and the
/// first cell of row 1) are always wall.
const STONE_SHIFT: u32 = 9;
/// Bits the shifted stones take (the last cell, 63, shifts to bit 54).
const STONE_BITS: u32 = 64 - STONE_SHIFT;
/// Cells no fruit stands on: (0, 0) is always wall, (7, 7) wall or off the board.
const NO_FRUIT: u64 = 1 | 1 << 63;
/// The code of a colour no longer in play (see [`pair_codes`]).
const EMPTY_CODE: u64 = 0xFFF;

/// Colours up to which a key holds the stones as a shifted bitboard and each colour as
/// two cells: three colours take 12 bytes either way, and this layout packs in the
/// fewest instructions. More colours use the compact layout, which keeps four to six
/// colours in 12 bytes instead of 16 (a third of a many-coloured verification's memory
/// is its keys).
const SHIFTED_COLOURS: usize = 3;
/// The inner 6x6 of the largest board (the outer ring is always wall): every movable
/// stands in it, so the compact layout keeps only its 36 cells' stone bits.
const INNER_SIDE: usize = 6;
const INNER_BITS: u32 = (INNER_SIDE * INNER_SIDE) as u32;
/// Bits of a colour's code in the compact layout: 0 for a colour out of play, else
/// one of the 630 pairs of inner cells.
const COMBO_BITS: u32 = 10;
const PAIRS: usize = INNER_SIDE * INNER_SIDE * (INNER_SIDE * INNER_SIDE - 1) / 2;

/// Whether a state of `words` bitboards packs to the compact layout.
const fn compact(words: usize) -> bool {
    words - 1 > SHIFTED_COLOURS
}

/// Key words (`u32`) for a state of `words` bitboards.
pub const fn key_words(words: usize) -> usize {
    let colours = words - 1;
    let bits = if compact(words) {
        INNER_BITS as usize + COMBO_BITS as usize * colours
    } else {
        STONE_BITS as usize + PAIR_BITS as usize * colours
    };
    bits.div_ceil(32)
}

/// Each colour's code, in 12 bits from bit `12 i`: its low cell, then 63 less its high
/// cell (a colour holds two fruits or none: a pair leaves together). With the
/// [`NO_FRUIT`] cells added, a word is never zero, so each end is one bit scan with no
/// test for an empty word, whose code, [`EMPTY_CODE`], names those two cells. Every high
/// part starts at 63 and has its high cell taken off, which is the bit scan's own answer
/// (`leading_zeros` would cost one more instruction a colour); no part borrows from the
/// next, since no cell is over 63.
#[inline(always)]
fn pair_codes(colours: &[u64]) -> u64 {
    let all_63 = (0..colours.len()).fold(0, |acc, i| acc | 63 << (PAIR_BITS * i as u32 + 6));
    colours.iter().enumerate().fold(all_63, |acc, (i, &word)| {
        debug_assert!(
            matches!(word.count_ones(), 0 | 2),
            "a colour has 0 or 2 fruits"
        );
        let shift = PAIR_BITS * i as u32;
        let low = u64::from((word | 1 << 63).trailing_zeros());
        let high = u64::from(63 - (word | 1).leading_zeros());
        (acc - (high << (shift + 6))) | low << shift
    })
}

/// The colour a code names.
#[inline(always)]
fn pair_of(code: u64) -> u64 {
    (1u64 << (code & 63) | 1u64 << (!code >> 6 & 63)) & !NO_FRUIT
}

/// A cell's place in the inner 6x6, row by row.
#[inline(always)]
fn inner_index(cell: u32) -> u64 {
    u64::from(cell >> 3) * INNER_SIDE as u64 + u64::from(cell & 7) - (INNER_SIDE as u64 + 1)
}

/// A colour's code in the compact layout: 0 when out of play, else 1 + the rank of its
/// pair of inner cells (low index `l` below high index `h`: `h (h - 1) / 2 + l`).
#[inline(always)]
fn combo_code(word: u64) -> u64 {
    debug_assert!(
        matches!(word.count_ones(), 0 | 2),
        "a colour has 0 or 2 fruits"
    );
    if word == 0 {
        return 0;
    }
    let low = inner_index(word.trailing_zeros());
    let high = inner_index(63 - word.leading_zeros());
    1 + high * (high - 1) / 2 + low
}

/// The colour of each compact code, code 0 being none.
static COMBO_PAIRS: [u64; PAIRS + 1] = combo_pairs();

/// The bit of inner cell `i`.
const fn inner_bit(i: usize) -> u64 {
    1u64 << ((i / INNER_SIDE + 1) * STRIDE + i % INNER_SIDE + 1)
}

const fn combo_pairs() -> [u64; PAIRS + 1] {
    let mut pairs = [0u64; PAIRS + 1];
    let mut high = 1;
    while high < INNER_SIDE * INNER_SIDE {
        let mut low = 0;
        while low < high {
            pairs[1 + high * (high - 1) / 2 + low] = inner_bit(low) | inner_bit(high);
            low += 1;
        }
        high += 1;
    }
    pairs
}

/// The stones of the inner 6x6 as 36 bits, row by row: each row's six bits are
/// closed up, two rows at a time, then the pairs of rows.
#[inline(always)]
fn compact_stones(stones: u64) -> u64 {
    let rows = stones >> STONE_SHIFT;
    let pairs = (rows & 0x003F_003F_003F) | (rows & 0x3F00_3F00_3F00) >> 2;
    (pairs & 0xFFF) | (pairs >> 4 & 0xFFF << 12) | (pairs >> 8 & 0xFFF << 24)
}

/// The bitboard [`compact_stones`] closed up.
#[inline(always)]
fn spread_stones(bits: u64) -> u64 {
    let pairs = (bits & 0xFFF) | (bits & 0xFFF << 12) << 4 | (bits & 0xFFF << 24) << 8;
    ((pairs & 0x003F_003F_003F) | (pairs & 0x0FC0_0FC0_0FC0) << 2) << STONE_SHIFT
}

/// Keys of this many words (up to three colours) are laid out so that no code crosses a
/// word: the stones in the first two words, the codes from the third on, and what
/// spills past the third (the last 4 bits of a third colour's) above the stones.
const SHORT_KEY: usize = 3;

/// A state (one bitboard per colour, then the stones) packed for the solver's table of
/// keys. Up to three colours: the stones shifted down to 55 bits, then each colour's
/// code in 12 bits (12 bytes). More: the stones of the inner 6x6 in 36 bits, then each
/// colour's pair of inner cells in 10 bits (12 bytes up to six colours, 16 up to
/// eight), against 8 bytes a bitboard. The packed key is also what is hashed and
/// compared, so it costs only a few instructions a tilt.
#[inline(always)]
pub fn pack<const W: usize, const K: usize>(state: &[u64; W]) -> [u32; K] {
    let colours = &state[..W - 1];
    if compact(W) {
        let wide = colours.iter().enumerate().fold(
            u128::from(compact_stones(state[W - 1])),
            |acc, (i, &word)| {
                acc | u128::from(combo_code(word)) << (INNER_BITS + COMBO_BITS * i as u32)
            },
        );
        return std::array::from_fn(|k| (wide >> (32 * k)) as u32);
    }
    let stones = state[W - 1] >> STONE_SHIFT;
    let codes = pair_codes(colours);
    let low = stones | (codes >> 32) << STONE_BITS;
    std::array::from_fn(|k| match k {
        0 => low as u32,
        1 => (low >> 32) as u32,
        _ => codes as u32,
    })
}

/// A compact key's words as one number.
#[inline(always)]
fn wide_key(key: &[u32]) -> u128 {
    key.iter()
        .enumerate()
        .fold(0, |acc, (k, &w)| acc | u128::from(w) << (32 * k))
}

/// The colour `i` of a packed key of `colours` colours, as a bitboard.
#[inline(always)]
fn colour_of(key: &[u32], colours: usize, i: usize) -> u64 {
    if colours > SHIFTED_COLOURS {
        let code = (wide_key(key) >> (INNER_BITS + COMBO_BITS * i as u32)) as usize;
        return COMBO_PAIRS[code & ((1 << COMBO_BITS) - 1)];
    }
    debug_assert_eq!(key.len(), SHORT_KEY);
    let codes = u64::from(key[2]) | u64::from(key[1] >> (STONE_BITS - 32)) << 32;
    pair_of(codes >> (PAIR_BITS * i as u32) & EMPTY_CODE)
}

/// The state [`pack`] packed.
#[inline(always)]
pub fn unpack<const W: usize, const K: usize>(key: &[u32; K]) -> [u64; W] {
    let mut state = [0u64; W];
    state[W - 1] = packed_stones(key, W - 1);
    for (i, out) in state[..W - 1].iter_mut().enumerate() {
        *out = colour_of(key, W - 1, i);
    }
    state
}

/// The stones of a packed key of `colours` colours.
#[inline(always)]
pub fn packed_stones(key: &[u32], colours: usize) -> u64 {
    if colours > SHIFTED_COLOURS {
        return spread_stones(wide_key(key) as u64 & ((1 << INNER_BITS) - 1));
    }
    ((u64::from(key[0]) | u64::from(key[1]) << 32) & (u64::MAX >> STONE_SHIFT)) << STONE_SHIFT
}

/// The colours still in play in a packed key of `colours` colours (nothing unpacked
/// but their codes).
pub fn packed_pairs(key: &[u32], colours: usize) -> u32 {
    (0..colours)
        .filter(|&i| colour_of(key, colours, i) != 0)
        .count() as u32
}

/// [`unpack`] for a width known only at run time (the generator's few reads).
pub fn unpack_any(key: &[u32], words: usize) -> Vec<u64> {
    macro_rules! by_width {
        ($($w:literal)*) => {
            match words {
                $($w => unpack::<$w, { key_words($w) }>(key.try_into().expect("key width")).to_vec(),)*
                n => unreachable!("a state has one word per colour (at most 8) plus one, not {n}"),
            }
        };
    }
    by_width!(1 2 3 4 5 6 7 8 9)
}

/// Whether a colour's two fruits stand orthogonally next to each other. Fruit stands on
/// columns 1 to 6 only (the outer ring is wall, and a board is at most 8 wide), so a
/// shift by one never carries a fruit into the next row.
#[inline]
pub fn has_adjacent_pair(word: u64) -> bool {
    word & (word << 1 | word << 8) != 0
}

fn neighbour_table(w: usize, h: usize) -> [[u8; 64]; 4] {
    let mut next = [[NONE; 64]; 4];
    for d in Dir::ALL {
        let (dx, dy) = d.delta();
        for y in 0..h {
            for x in 0..w {
                let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                    next[d.index()][cell_of(x, y)] = cell_of(nx as usize, ny as usize) as u8;
                }
            }
        }
    }
    next
}

/// Checks every rule of the fruit level format.
pub fn validate(level: &FruitLevel) -> Result<(), RuleError> {
    let (w, h) = (level.width, level.height);
    grid::check_shape(&level.grid, w, h, (3, 3), (8, 8), "#.~abcdefghoHA")?;
    for (x, y, c) in grid::cells(&level.grid) {
        let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
        if border && c != '#' {
            return Err(RuleError::new(
                "fruit.border",
                format!(
                    "cell ({x},{y}) is `{c}`: the outer ring of the board must be solid wall `#`"
                ),
            ));
        }
    }
    check_pairs(level)?;
    check_anteaters(level)?;
    for (i, one_way) in level.one_ways.iter().enumerate() {
        let (x, y) = (one_way.x, one_way.y);
        // In `usize`: a coordinate past `i32::MAX` must not wrap onto the board.
        if x >= w || y >= h || neighbour(w, h, x, y, one_way.dir).is_none() {
            return Err(RuleError::new(
                "fruit.one_way",
                format!(
                    "one_ways[{i}] at ({x},{y}) facing {:?} is not a border between two cells of the board",
                    one_way.dir
                ),
            ));
        }
    }
    Ok(())
}

/// The cell next to (x, y) in direction `d`, if it is on a `w` x `h` board.
fn neighbour(w: usize, h: usize, x: usize, y: usize, d: Dir) -> Option<(usize, usize)> {
    let (dx, dy) = d.delta();
    let (nx, ny) = (
        x.checked_add_signed(dx as isize)?,
        y.checked_add_signed(dy as isize)?,
    );
    (nx < w && ny < h).then_some((nx, ny))
}

fn check_pairs(level: &FruitLevel) -> Result<(), RuleError> {
    let mut pairs = 0;
    for letter in FRUIT_LETTERS.chars() {
        let cells: Vec<(usize, usize)> = grid::cells(&level.grid)
            .filter(|&(_, _, c)| c == letter)
            .map(|(x, y, _)| (x, y))
            .collect();
        match cells.len() {
            0 => {}
            2 => {
                let (a, b) = (cells[0], cells[1]);
                if a.0.abs_diff(b.0) + a.1.abs_diff(b.1) == 1 {
                    return Err(RuleError::new(
                        "fruit.start_match",
                        format!(
                            "the `{letter}` pair already stand next to each other at the start"
                        ),
                    ));
                }
                pairs += 1;
            }
            n => {
                return Err(RuleError::new(
                    "fruit.pairs",
                    format!(
                        "fruit `{letter}` appears {n} times; every colour appears exactly twice"
                    ),
                ));
            }
        }
    }
    if pairs == 0 {
        return Err(RuleError::new("fruit.pairs", "the level has no fruit"));
    }
    Ok(())
}

fn check_anteaters(level: &FruitLevel) -> Result<(), RuleError> {
    let on_grid: Vec<(usize, usize)> = grid::cells(&level.grid)
        .filter(|&(_, _, c)| c == 'A')
        .map(|(x, y, _)| (x, y))
        .collect();
    for (i, a) in level.anteaters.iter().enumerate() {
        if !on_grid.contains(&(a.x, a.y)) {
            return Err(RuleError::new(
                "fruit.anteater",
                format!(
                    "anteaters[{i}] is at ({},{}), which is not an `A` cell",
                    a.x, a.y
                ),
            ));
        }
    }
    for &(x, y) in &on_grid {
        let n = level
            .anteaters
            .iter()
            .filter(|a| (a.x, a.y) == (x, y))
            .count();
        if n != 1 {
            return Err(RuleError::new(
                "fruit.anteater",
                format!(
                    "the anteater at ({x},{y}) has {n} entries in `anteaters`; it needs exactly one (its facing)"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Dir::*;

    fn level(
        rows: &[&str],
        one_ways: &[(usize, usize, Dir)],
        anteaters: &[(usize, usize, Dir)],
    ) -> FruitLevel {
        let arrows =
            |v: &[(usize, usize, Dir)]| v.iter().map(|&(x, y, dir)| Arrow { x, y, dir }).collect();
        FruitLevel {
            width: rows[0].len(),
            height: rows.len(),
            grid: rows.iter().map(|r| r.to_string()).collect(),
            one_ways: arrows(one_ways),
            anteaters: arrows(anteaters),
        }
    }

    /// Tilts once and renders the result as rows (fruit letters, `o` for stones).
    fn tilt_rows(lv: &FruitLevel, d: Dir) -> Result<Vec<String>, Loss> {
        validate(lv).unwrap();
        let (board, state) = Board::compile(lv);
        let mut out = vec![0; state.len()];
        board.tilt_explained(&state, d, &mut out)?;
        Ok(render(lv, &board, &out))
    }

    fn render(lv: &FruitLevel, board: &Board, state: &[u64]) -> Vec<String> {
        let mut rows: Vec<Vec<char>> = lv
            .grid
            .iter()
            .map(|r| {
                r.chars()
                    .map(|c| if "abcdefgho".contains(c) { '.' } else { c })
                    .collect()
            })
            .collect();
        for (i, &word) in state.iter().enumerate() {
            let c = board.letters.get(i).copied().unwrap_or('o');
            for cell in 0..64 {
                if word & bit(cell) != 0 {
                    rows[cell / 8][cell % 8] = c;
                }
            }
        }
        rows.into_iter().map(|r| r.into_iter().collect()).collect()
    }

    #[test]
    fn movables_slide_farthest_first_and_stop_on_each_other() {
        let lv = level(&["#######", "#a.o.b#", "#b...a#", "#######"], &[], &[]);
        assert_eq!(
            tilt_rows(&lv, R).unwrap(),
            ["#######", "#..aob#", "#...ba#", "#######"]
        );
        assert_eq!(
            tilt_rows(&lv, L).unwrap(),
            ["#######", "#aob..#", "#ba...#", "#######"]
        );
    }

    #[test]
    fn pair_that_meets_is_removed_and_the_level_won() {
        let lv = level(&["######", "#a..a#", "######"], &[], &[]);
        let (board, state) = Board::compile(&lv);
        let state: [u64; 2] = state.try_into().unwrap();
        let mut out = [0; 2];
        // Tilting right: the right fruit stays, the left slides next to it; both vanish.
        assert_eq!(board.tilt(&state, R, &mut out), Step::Moved);
        assert!(board.is_win(&out));
    }

    #[test]
    fn a_tilt_that_changes_nothing_is_not_a_move() {
        let lv = level(&["#####", "#a.b#", "#b.a#", "#####"], &[], &[]);
        let (board, state) = Board::compile(&lv);
        let state: [u64; 3] = state.try_into().unwrap();
        let mut out = [0; 3];
        // Row 1 is against the wall and row 2 against row 1.
        assert_eq!(board.tilt(&state, U, &mut out), Step::Same);
    }

    #[test]
    fn fruit_sinks_in_mud() {
        let lv = level(&["######", "#a~.a#", "#....#", "######"], &[], &[]);
        assert_eq!(tilt_rows(&lv, R), Err(Loss::Sank));
    }

    #[test]
    fn stones_slide_over_mud() {
        let lv = level(
            &["######", "#o~..#", "#a.b.#", "#b..a#", "######"],
            &[],
            &[],
        );
        assert_eq!(
            tilt_rows(&lv, R).unwrap(),
            ["######", "#.~.o#", "#..ab#", "#..ba#", "######"]
        );
    }

    #[test]
    fn hedgehog_eats_fruit_that_ends_in_front_even_without_moving() {
        let lv = level(
            &["######", "#..aH#", "#b...#", "#..ab#", "######"],
            &[],
            &[],
        );
        assert_eq!(tilt_rows(&lv, R), Err(Loss::Eaten));
    }

    #[test]
    fn a_stone_against_a_hedgehog_is_harmless() {
        let lv = level(
            &["######", "#o..H#", "#a.b.#", "#b.a.#", "######"],
            &[],
            &[],
        );
        assert_eq!(
            tilt_rows(&lv, R).unwrap(),
            ["######", "#..oH#", "#..ab#", "#..ba#", "######"]
        );
    }

    #[test]
    fn hedgehog_only_eats_in_the_tilt_direction() {
        // `a` at (2,1) sits beside the hedgehog but tilting up faces the wall.
        let lv = level(
            &["######", "#.aH.#", "#b..b#", "#a...#", "######"],
            &[],
            &[],
        );
        assert_eq!(
            tilt_rows(&lv, U).unwrap(),
            ["######", "#baHb#", "#a...#", "#....#", "######"]
        );
    }

    #[test]
    fn one_way_blocks_crossing_against_its_direction() {
        // One-way on the border between (2,1) and (3,1), crossable only to the right.
        let lv = level(
            &["#######", "#...a.#", "#b.a..#", "#.b...#", "#######"],
            &[(2, 1, R)],
            &[],
        );
        // `a` from (4,1) stops at (3,1); the `b` pair meets in the left column.
        assert_eq!(
            tilt_rows(&lv, L).unwrap(),
            ["#######", "#..a..#", "#.a...#", "#.....#", "#######"]
        );
        let free = level(
            &["#######", "#...a.#", "#b.a..#", "#.b...#", "#######"],
            &[],
            &[],
        );
        assert_eq!(tilt_rows(&free, L).unwrap()[1], "#a....#");
    }

    #[test]
    fn one_way_lets_movables_cross_in_its_direction() {
        let lv = level(
            &["#######", "#a....#", "#b..a.#", "#.b...#", "#######"],
            &[(2, 1, R)],
            &[],
        );
        // `a` crosses to (5,1) and meets its partner at (5,2).
        assert_eq!(
            tilt_rows(&lv, R).unwrap(),
            ["#######", "#.....#", "#...b.#", "#....b#", "#######"]
        );
    }

    #[test]
    fn anteater_pulls_the_first_fruit_it_sees_onto_the_cell_in_front() {
        let lv = level(
            &[
                "#######", "#A...a#", "#b....#", "#....b#", "#a....#", "#######",
            ],
            &[],
            &[(1, 1, R)],
        );
        // `a` at (5,1) does not move; the tongue pulls it to (2,1); the `b` pair meets.
        assert_eq!(
            tilt_rows(&lv, R).unwrap(),
            [
                "#######", "#Aa...#", "#.....#", "#.....#", "#....a#", "#######"
            ]
        );
    }

    #[test]
    fn an_anteater_with_room_for_one_cell_pulls_nothing_and_is_left_out() {
        let lv = level(
            &["#######", "#A.b..#", "#..a..#", "##..ab#", "#######"],
            &[],
            &[(1, 1, D)],
        );
        let (board, _) = Board::compile(&lv);
        assert!(board.tongues.is_empty());
        // An `a` slides into the cell in front of the anteater and stays there.
        assert_eq!(
            tilt_rows(&lv, L).unwrap(),
            ["#######", "#Ab...#", "#a....#", "##ab..#", "#######"]
        );
    }

    #[test]
    fn anteater_tongue_is_stopped_by_a_stone() {
        let lv = level(
            &[
                "#######", "#A.o.a#", "#b....#", "#....b#", "#a....#", "#######",
            ],
            &[],
            &[(1, 1, R)],
        );
        assert_eq!(tilt_rows(&lv, R).unwrap()[1], "#A..oa#");
    }

    #[test]
    fn anteater_pulling_onto_mud_loses() {
        let lv = level(
            &[
                "#######", "#A~..a#", "#b....#", "#....b#", "#a....#", "#######",
            ],
            &[],
            &[(1, 1, R)],
        );
        assert_eq!(tilt_rows(&lv, R), Err(Loss::PulledIntoMud));
    }

    #[test]
    fn anteaters_act_in_reading_order() {
        // Both see the `a` at (5,1). The one at (1,1) comes first in reading order and
        // pulls it to (2,1); the one at (5,3) then sees nothing. Listed out of order on
        // purpose: the order is the board's, not the list's.
        let lv = level(
            &[
                "#######", "#A...a#", "#.....#", "#....A#", "#b...b#", "#a....#", "#######",
            ],
            &[],
            &[(5, 3, U), (1, 1, R)],
        );
        validate(&lv).unwrap();
        let (board, start) = Board::compile(&lv);
        let mut state: [u64; 3] = start.try_into().unwrap();
        let mut kinds = Kinds::of(&state);
        board.pull_tongues(&mut kinds).unwrap();
        kinds.write(&mut state);
        assert_eq!(render(&lv, &board, &state)[1], "#Aa...#");
        assert_eq!(render(&lv, &board, &state)[2], "#.....#");
    }

    /// The slide as the rules word it: one movable at a time, the farthest along `d`
    /// first, each stepping while it may leave its cell and the next one is free; a
    /// fruit that steps onto mud sinks.
    fn slide_one_by_one(board: &Board, state: &[u64], d: Dir) -> Result<Vec<u64>, Loss> {
        let mut words = state.to_vec();
        let stones = words.len() - 1;
        let mut cells: Vec<usize> = (0..64)
            .filter(|&c| words.iter().any(|w| w & bit(c) != 0))
            .collect();
        // Farther along R and D is a higher bit, along U and L a lower one.
        if matches!(d, R | D) {
            cells.reverse();
        }
        for mut cell in cells {
            let word = words.iter().position(|w| w & bit(cell) != 0).unwrap();
            let occupied = |words: &[u64], c: usize| words.iter().any(|w| w & bit(c) != 0);
            while board.can_step[d.index()] & bit(cell) != 0 {
                let next = board.next[d.index()][cell] as usize;
                if occupied(&words, next) {
                    break;
                }
                words[word] ^= bit(cell) | bit(next);
                cell = next;
                if word != stones && board.mud & bit(cell) != 0 {
                    return Err(Loss::Sank);
                }
            }
        }
        Ok(words)
    }

    /// A random board of up to 8 x 8 with walls, mud and one-ways, up to two fruit of
    /// each of three colours and a few stones (stones may rest on mud, fruit never
    /// does), as the level and its state of words `a`, `b`, `c`, stones.
    fn random_board(below: &mut impl FnMut(usize) -> usize) -> (FruitLevel, [u64; 4]) {
        let (w, h) = (3 + below(6), 3 + below(6));
        let mut rows: Vec<Vec<char>> = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| match below(10) {
                        _ if x == 0 || y == 0 || x == w - 1 || y == h - 1 => '#',
                        0 => '#',
                        1 => '~',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        for c in "aabbccooo".chars() {
            let (x, y) = (below(w), below(h));
            let under = rows[y][x];
            if under == '.' || (c == 'o' && under == '~') {
                rows[y][x] = c;
            }
        }
        let one_ways: Vec<_> = (0..below(4))
            .map(|_| (1 + below(w - 2), 1 + below(h - 2), Dir::ALL[below(4)]))
            .collect();
        let rows: Vec<String> = rows.iter().map(String::from_iter).collect();
        let lv = level(
            &rows.iter().map(String::as_str).collect::<Vec<_>>(),
            &one_ways,
            &[],
        );
        let (board, start) = Board::compile(&lv);
        let word = |c: char| match c {
            'o' => start[start.len() - 1],
            c => board
                .letters
                .iter()
                .position(|&l| l == c)
                .map_or(0, |k| start[k]),
        };
        (lv, ['a', 'b', 'c', 'o'].map(word))
    }

    #[test]
    fn the_slide_by_planes_matches_sliding_one_by_one() {
        let mut rng = crate::rng::LevelRng::from_u64(42);
        let mut below = |n: usize| rng.below(n as u64) as usize;
        for _ in 0..2000 {
            let (lv, state) = random_board(&mut below);
            let (board, _) = Board::compile(&lv);
            for d in Dir::ALL {
                let mut kinds = Kinds::of(&state);
                let planes = board.slide::<true, 4>(&mut kinds, d).map(|_| {
                    let mut out = [0u64; 4];
                    kinds.write(&mut out);
                    out.to_vec()
                });
                let simple = slide_one_by_one(&board, &state, d);
                assert_eq!(planes, simple, "{:?} {d:?}", lv.grid);
                // Without a movable upstream of mud, the slide that skips the check agrees.
                let mut unchecked = Kinds::of(&state);
                if unchecked.occupied & board.upstream_of_mud[d.index()] == 0 {
                    let moved = board.slide::<false, 4>(&mut unchecked, d).map(|_| {
                        let mut out = [0u64; 4];
                        unchecked.write(&mut out);
                        out.to_vec()
                    });
                    assert_eq!(moved, simple, "{:?} {d:?}", lv.grid);
                    // So does a row's slide in reading order.
                    #[cfg(target_arch = "x86_64")]
                    if matches!(d, L | R) && std::arch::is_x86_feature_detected!("bmi2") {
                        let mut in_order = Kinds::of(&state);
                        // SAFETY: BMI2 was just detected.
                        unsafe { board.slide_in_order(&mut in_order, d) };
                        let mut out = [0u64; 4];
                        in_order.write(&mut out);
                        assert_eq!(Ok(out.to_vec()), simple, "{:?} {d:?}", lv.grid);
                    }
                }
            }
        }
    }

    #[test]
    fn lost_wins_over_won() {
        // Tilting left matches the `a` pair while a `b` sinks in the mud.
        let lv = level(&["#######", "#a..a.#", "#b.~.b#", "#######"], &[], &[]);
        assert_eq!(tilt_rows(&lv, L), Err(Loss::Sank));
    }

    #[test]
    fn validation_names_the_rule() {
        let rule = |rows: &[&str], ants: &[(usize, usize, Dir)]| {
            validate(&level(rows, &[], ants)).unwrap_err().rule
        };
        assert_eq!(rule(&["####", "#a.#", "####"], &[]), "fruit.pairs");
        assert_eq!(rule(&["#####", "#aa.#", "#####"], &[]), "fruit.start_match");
        assert_eq!(rule(&["#####", "#a.a.", "#####"], &[]), "fruit.border");
        assert_eq!(rule(&["######", "#aA.a#", "######"], &[]), "fruit.anteater");
        assert_eq!(rule(&["######", "#a.Xa#", "######"], &[]), "grid.cell");
        assert_eq!(
            rule(&["#####", "#a..#", "#..a#", "#####"], &[(5, 5, R)]),
            "fruit.anteater"
        );
        // x wraps to 2 as an `i32`: it must still be off the board.
        let far = level(
            &["#####", "#a..#", "#..a#", "#####"],
            &[((1 << 32) + 2, 1, R)],
            &[],
        );
        assert_eq!(validate(&far).unwrap_err().rule, "fruit.one_way");
    }
}
