//! The four moves of a position by table, for long searches on CPUs with BMI2.
//!
//! Without an exit or a push, pieces meet only within their own row or column, and a
//! line's pieces end where its pieces and crates alone say (the board's blocks and pits
//! are fixed). So each line has a table, filled as its contents first occur, of where
//! its pieces end toward both ends of the line, already in place on the board: a move's
//! new occupancy is an OR of one entry per line, eleven lookups for all four moves.
//! The pieces keep their order along their lines, so each bit plane of the piece codes
//! follows with `pext`/`pdep`: over the whole board for left and right (reading order is
//! row by row), column by column for up and down. A move where a skiddy pushes a crate
//! is recomputed by [`Board::tilt`]'s own route; one where a skiddy reaches its goal
//! along the lines where that is exact, else by the ticks.

use std::arch::x86_64::{_pdep_u32, _pext_u32, _pext_u64};

use super::rules::{
    Board, COL_FIRST, COL_LAST, COLOURS, CRATE, ICE, RED, STRIDE, State, bit, connected, facing,
};
use crate::core::Dir;

const ROWS: usize = 5;
const COLUMNS: usize = STRIDE;
/// A row's key: its six occupancy bits, then its six crate bits.
const ROW_KEYS: usize = 1 << 12;
/// A column's key: its five occupancy bits, then its five crate bits.
const COLUMN_KEYS: usize = 1 << 10;
const ENTRIES: usize = ROWS * ROW_KEYS + COLUMNS * COLUMN_KEYS;
/// The cells of a half entry; above them, its two flags.
const CELLS: u32 = (1 << 30) - 1;
/// A piece of the line ends right behind a crate with room ahead: a skiddy there pushes.
const PUSH: u32 = 1 << 30;
/// A piece of the line ends facing a goal on floor, or starts facing one in a pit: a
/// skiddy there of the goal's colour exits.
const EXIT: u32 = 1 << 31;
const ROW: u32 = (1 << STRIDE) - 1;
/// An entry not filled yet: every bit set, so that the OR of a move's entries is this
/// exactly when one of them is not filled. Filled entries never make it: their cells are
/// their own line's, so they cover every cell only when every line is full, and then no
/// crate has room ahead (no push flag). One comparison instead of counting the pieces.
const UNFILLED: u64 = u64::MAX;

/// The mask of a line in a position's occupancy-and-crates word.
const fn both_halves(cells: u32) -> u64 {
    cells as u64 | (cells as u64) << 32
}

const ROW_MASKS: [u64; ROWS] = {
    let mut masks = [0; ROWS];
    let mut y = 0;
    while y < ROWS {
        masks[y] = both_halves(ROW << (STRIDE * y));
        y += 1;
    }
    masks
};

const COLUMN_MASKS: [u64; COLUMNS] = {
    let mut masks = [0; COLUMNS];
    let mut x = 0;
    while x < COLUMNS {
        masks[x] = both_halves(COL_FIRST << x);
        x += 1;
    }
    masks
};

/// The cells of each cell's column.
const COLUMN_OF: [u32; 32] = {
    let mut columns = [0; 32];
    let mut cell = 0;
    while cell < 32 {
        columns[cell] = COL_FIRST << (cell % STRIDE);
        cell += 1;
    }
    columns
};

/// The cells of each cell's row.
const ROW_OF: [u32; 32] = {
    let mut rows = [0; 32];
    let mut cell = 0;
    while cell < 32 {
        rows[cell] = ROW << (cell / STRIDE * STRIDE);
        cell += 1;
    }
    rows
};

/// The moves of one board with its line tables.
pub struct LineMoves<'a> {
    board: &'a Board,
    /// Rows (by key) then columns: the cells the line's pieces end on toward up or left
    /// (the low half) and down or right (the high half), with their flags; [`UNFILLED`]
    /// until filled.
    table: Box<[u64; ENTRIES]>,
    /// Per direction: the cells facing a goal, on floor and in pits.
    exit_floor: [u32; 4],
    exit_pit: [u32; 4],
    /// Per direction: the bit planes of the code of the skiddy each goal takes, on the
    /// cells facing it (a cell faces one goal a direction).
    goal_code: [[u32; 3]; 4],
    /// Per direction and cell facing a goal on floor: its exit line.
    exit_lines: [[ExitLine; 32]; 4],
    /// Per direction and cell: the cells from which a piece sliding that way can pass
    /// over one of the cell's neighbours off its line (the lines beside).
    joiners: [[u32; 32]; 4],
}

/// The line of a cell facing a goal on floor, toward the goal.
#[derive(Clone, Copy, Default)]
struct ExitLine {
    /// The cell and the free cells behind it up to a block; 0 when a pit lies on them
    /// (the ticks decide).
    cells: u32,
    /// The bit planes of the code of the goal's colour, each all ones or all zeros.
    code: [u32; 3],
}

impl<'a> LineMoves<'a> {
    pub fn new(board: &'a Board) -> LineMoves<'a> {
        let table = vec![UNFILLED; ENTRIES].into_boxed_slice();
        let mut moves = LineMoves {
            board,
            table: table.try_into().expect("ENTRIES entries"),
            exit_floor: [0; 4],
            exit_pit: [0; 4],
            goal_code: board.goal_code(),
            exit_lines: [[ExitLine::default(); 32]; 4],
            joiners: [[0; 32]; 4],
        };
        for (d, cell) in (0..4).flat_map(|d| (0..32).map(move |cell| (d, cell))) {
            // Dir::ALL pairs opposite directions: U, D then L, R.
            let approach = |cell: usize| bit(cell) | board.ray(d ^ 1, cell);
            let beside = beside_any(d, bit(cell)) & board.free;
            moves.joiners[d][cell] = (0..32)
                .filter(|&c| beside & bit(c) != 0)
                .fold(0, |reach, c| reach | approach(c));
            let behind = approach(cell);
            if board.free & bit(cell) != 0 && behind & board.pits == 0 {
                let code = moves.goal_code[d].map(|plane| 0u32.wrapping_sub(plane >> cell & 1));
                moves.exit_lines[d][cell] = ExitLine {
                    cells: behind,
                    code,
                };
            }
        }
        for d in Dir::ALL {
            for colour in RED..RED + COLOURS as u8 {
                let cells = board.exits(colour, d);
                moves.exit_floor[d.index()] |= cells & !board.pits;
                moves.exit_pit[d.index()] |= cells & board.pits;
            }
        }
        moves
    }

    /// The four moves of `state`, in `Dir::ALL` order, the same as [`Board::tilts`].
    ///
    /// # Safety
    /// The CPU must have BMI1 and BMI2.
    #[cfg(test)]
    pub unsafe fn tilts(&mut self, state: State) -> [State; 4] {
        let mut moves = [state; 4];
        // SAFETY: the caller has BMI2.
        unsafe { self.each_tilt(state, |d, next| moves[d] = next) };
        moves
    }

    /// Each of the four moves of `state` that changes something handed to `take` as soon
    /// as it is known, in `Dir::ALL` order: the caller stores each before the next is
    /// computed, so that fewer of them are kept in registers (or spilled) at once.
    ///
    /// # Safety
    /// The CPU must have BMI1 and BMI2.
    #[inline(always)]
    pub unsafe fn each_tilt(&mut self, state: State, mut take: impl FnMut(usize, State)) {
        let occupied = state.occupied();
        let crates = state.mask(CRATE);
        let contents = u64::from(occupied) | u64::from(crates) << 32;
        // SAFETY: the caller has BMI2.
        let (rows, columns) = match unsafe { self.lookup(contents) } {
            Some(found) => found,
            None => {
                self.fill(contents);
                // SAFETY: as above.
                unsafe { self.lookup(contents) }.expect("every line filled")
            }
        };
        let ends = [
            columns as u32,
            (columns >> 32) as u32,
            rows as u32,
            (rows >> 32) as u32,
        ];
        // SAFETY: as above.
        unsafe {
            if let Some(next) = self.finish::<0>(state, occupied, crates, ends[0]) {
                take(0, next);
            }
            if let Some(next) = self.finish::<1>(state, occupied, crates, ends[1]) {
                take(1, next);
            }
            if let Some(next) = self.finish::<2>(state, occupied, crates, ends[2]) {
                take(2, next);
            }
            if let Some(next) = self.finish::<3>(state, occupied, crates, ends[3]) {
                take(3, next);
            }
        }
    }

    /// The new occupancies of the rows' moves (left, right) and the columns' (up,
    /// down), as two pairs of halves with their flags; `None` if a line has no entry
    /// yet.
    #[inline(always)]
    unsafe fn lookup(&self, contents: u64) -> Option<(u64, u64)> {
        let (mut rows, mut columns) = (0, 0);
        for (y, &mask) in ROW_MASKS.iter().enumerate() {
            // SAFETY: the caller has BMI2.
            let key = unsafe { _pext_u64(contents, mask) } as usize;
            rows |= self.table[y * ROW_KEYS + (key & (ROW_KEYS - 1))];
        }
        for (x, &mask) in COLUMN_MASKS.iter().enumerate() {
            // SAFETY: as above.
            let key = unsafe { _pext_u64(contents, mask) } as usize;
            columns |= self.table[ROWS * ROW_KEYS + x * COLUMN_KEYS + (key & (COLUMN_KEYS - 1))];
        }
        (rows != UNFILLED && columns != UNFILLED).then_some((rows, columns))
    }

    /// Fills the entries of the lines of `contents`: each line alone on the board, its
    /// pieces ice (which neither exits nor pushes) and its crates crates, moved by the
    /// slide.
    #[cold]
    #[inline(never)]
    fn fill(&mut self, contents: u64) {
        let lines = ROW_MASKS.iter().chain(&COLUMN_MASKS);
        for (line, &mask) in lines.enumerate() {
            let mut alone = State::default();
            let (pieces, crates) = ((contents & mask) as u32, ((contents & mask) >> 32) as u32);
            for cell in (0..32).filter(|&c| pieces & 1 << c != 0) {
                alone.put(cell, if crates & 1 << cell != 0 { CRATE } else { ICE });
            }
            let key = pext64(contents, mask);
            let (index, halves) = if line < ROWS {
                (
                    line * ROW_KEYS + key,
                    [self.half::<2>(alone), self.half::<3>(alone)],
                )
            } else {
                let index = ROWS * ROW_KEYS + (line - ROWS) * COLUMN_KEYS + key;
                (index, [self.half::<0>(alone), self.half::<1>(alone)])
            };
            self.table[index] = u64::from(halves[0]) | u64::from(halves[1]) << 32;
        }
    }

    /// A half entry: the cells a line's pieces (`alone` on the board) end on toward D,
    /// with its flags.
    fn half<const D: usize>(&self, alone: State) -> u32 {
        let ends = self.board.slide_alone::<D>(alone).occupied();
        let behind_crates = self.board.behind_crates::<D>(alone.mask(CRATE), ends);
        let exit = (ends & self.exit_floor[D]) | (alone.occupied() & self.exit_pit[D]);
        let push = if behind_crates != 0 { PUSH } else { 0 };
        ends | push | if exit != 0 { EXIT } else { 0 }
    }

    /// The move toward `D` given its new occupancy `ends` (pieces only, as if nothing
    /// exits or is pushed): the codes carried along, then the exit and push tests;
    /// `None` when the move changes nothing.
    #[inline(always)]
    unsafe fn finish<const D: usize>(
        &self,
        state: State,
        occupied: u32,
        crates: u32,
        half: u32,
    ) -> Option<State> {
        let ends = half & CELLS;
        let moved = if ends == occupied {
            state
        } else if D >= 2 {
            // SAFETY: the caller has BMI2.
            State(
                state
                    .0
                    .map(|plane| unsafe { _pdep_u32(_pext_u32(plane, occupied), ends) }),
            )
        } else {
            let mut moved = state;
            let mut changed = occupied ^ ends;
            while changed != 0 {
                let column = COLUMN_OF[changed.trailing_zeros() as usize];
                let (from, to) = (occupied & column, ends & column);
                for plane in &mut moved.0 {
                    // SAFETY: as above.
                    *plane = (*plane & !column) | unsafe { _pdep_u32(_pext_u32(*plane, from), to) };
                }
                changed &= !column;
            }
            moved
        };
        let changed = |next: State| (next != state).then_some(next);
        if half & PUSH != 0 && self.board.pushes::<D>(crates, ends, moved) {
            // SAFETY: the caller has the bit instructions.
            return changed(unsafe { tilt_out_of_line::<D>(self.board, state) });
        }
        if half & EXIT != 0 {
            let (on_floor, in_pit) = self.exits::<D>(state, moved);
            if on_floor | in_pit != 0 {
                // SAFETY: as above.
                return changed(unsafe {
                    exit_out_of_line::<D>(self, state, moved, on_floor, in_pit)
                });
            }
        }
        // Without a push or an exit, the pieces moved exactly when the cells changed.
        (ends != occupied).then_some(moved)
    }
}

impl LineMoves<'_> {
    /// Where skiddies exit in the move from `before` toward D, given the board `after`
    /// it without exits and pushes: the cells where one ends facing its goal on floor,
    /// and those where one started facing it in a pit (one that slides into a pit stays
    /// there).
    #[inline(always)]
    fn exits<const D: usize>(&self, before: State, after: State) -> (u32, u32) {
        let (on_floor, in_pit) = (self.exit_floor[D], self.exit_pit[D]);
        let other = |s: State| s.coded_other_than(&self.goal_code[D]);
        let in_pit = if in_pit != 0 {
            in_pit & !other(before)
        } else {
            0
        };
        (on_floor & !other(after), in_pit)
    }

    /// The move from `before` toward D where skiddies exit on floor from `exiting`,
    /// found from the move without exits, `after`, without the ticks; `None` where the
    /// ticks must decide.
    ///
    /// On an exit line with no crate or pit, every piece slides on until it stops at
    /// the line's end or right behind a piece that did, and none of the skiddies of the
    /// goal's colour that `after` lines up from the end (the leaving run) ever stops:
    /// each exits on reaching the end, the group of one that exits takes the others
    /// right behind it, and the pieces behind them slide into the room they leave. So
    /// the run leaves and the rest of the line moves up by its length. A group may
    /// reach beyond the line and take skiddies of the colour beside the run as it
    /// exits: where one can come there, [`LineMoves::joined_exit`] finds which leave.
    ///
    /// # Safety
    /// The CPU must have BMI2.
    #[inline(always)]
    unsafe fn exits_along_lines<const D: usize>(
        &self,
        before: State,
        after: State,
        exiting: u32,
    ) -> Option<State> {
        let crates = before.mask(CRATE);
        let mut out = after;
        let mut ends = exiting;
        while ends != 0 {
            let end = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let ExitLine { cells: line, code } = self.exit_lines[D][end];
            if line == 0 || line & crates != 0 {
                return None;
            }
            let run = run_behind::<D>(bit(end), !after.coded_other_than(&code) & line);
            let others = !before.coded_other_than(&code) & !line & self.joiners_any::<D>(run);
            if others != 0 {
                let exit = ExitLine { cells: line, code };
                // SAFETY: the caller has BMI2.
                let Joined { gone, followers } =
                    unsafe { self.joined_exit::<D>(before, after, exit, run, others, exiting) }?;
                out.clear(gone);
                if followers != 0 {
                    for plane in &mut out.0 {
                        *plane = (*plane & !followers) | advance_by::<D>(*plane & followers, 1);
                    }
                }
            }
            let length = run.count_ones();
            for plane in &mut out.0 {
                let rest = *plane & line & !run;
                *plane = (*plane & !line) | advance_by::<D>(rest, length);
            }
        }
        Some(out)
    }

    /// The cells from which a piece sliding toward D can pass over a neighbour of
    /// `cells` on the lines beside.
    #[inline(always)]
    fn joiners_any<const D: usize>(&self, mut cells: u32) -> u32 {
        let mut reach = 0;
        while cells != 0 {
            reach |= self.joiners[D][cells.trailing_zeros() as usize];
            cells &= cells - 1;
        }
        reach
    }

    /// Where skiddies off the exit line leave with its run (their cells in `after`),
    /// found along the lines; `None` where the ticks must decide.
    ///
    /// Where the run's pieces started lined up behind the line's front piece, they
    /// slide in step and nothing stops them, so they reach the end together and exit in
    /// one tick, once the front has slid to the end: the board is then the start after
    /// as many ticks as that took, where every piece off the line has slid as far (see
    /// [`Slide`]), and the run's group is found there. A skiddy taken with it changes
    /// nothing else but the pieces that slide on into its room (see
    /// [`LineMoves::followers`]). The ticks decide the rest: a run that arrives in
    /// parts, another exit in the move, a group that reaches a skiddy of the colour on
    /// the exit line behind the run, followers that meet a goal, a pit or a crate.
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    #[inline(never)]
    fn joined_exit<const D: usize>(
        &self,
        before: State,
        after: State,
        exit: ExitLine,
        run: u32,
        others: u32,
        exiting: u32,
    ) -> Option<Joined> {
        let (line, moves) = (exit.cells, (before.occupied(), after.occupied()));
        let end = farthest::<D>(run);
        let ticks = cells_between::<D>(farthest::<D>(moves.0 & line), end);
        let started = retreat_by::<D>(run, ticks);
        if exiting != bit(end) || moves.0 & started != started {
            return None;
        }
        let then = |cells: u32| {
            cells_of(cells).fold(0, |then, cell| {
                then | Slide::of::<D>(moves, cell).after::<D>(ticks)
            })
        };
        let beside_run = then(others);
        if beside::<D>(run) & beside_run == 0 {
            return Some(Joined::default());
        }
        let colour = !before.coded_other_than(&exit.code);
        let group = connected(run, run | beside_run | then(colour & !line & !others)) & !run;
        // A skiddy of the colour behind the run on its line would join the group too.
        if beside::<D>(group) & then(colour & line & !started) != 0 {
            return None;
        }
        let mut joined = Joined::default();
        for cell in cells_of(colour & !line) {
            let slide = Slide::of::<D>(moves, cell);
            if slide.after::<D>(ticks) & group != 0 {
                joined.followers |= self.followers::<D>(before, moves, slide.stop, ticks, group)?;
                joined.gone |= slide.stop;
            }
        }
        Some(joined)
    }

    /// The pieces (their cells in `after`) that slide one cell on into the room of a
    /// skiddy that leaves from `stop` (its cell in `after`) after `ticks` ticks with
    /// `group`; `None` where the ticks must decide.
    ///
    /// The piece right behind it, if any, stays where `after` has it if it stopped
    /// there before the last of those ticks, or leaves too. Otherwise it is still
    /// sliding, and so is every piece lined up behind it up to a crate (each slid at
    /// least as far as the one ahead of it): they follow into the room, one cell on,
    /// where whatever stopped the leaver stops them. Unless the room faces a goal, a pit
    /// would stop one of them first, another leaver stands on their line or a crate is
    /// right behind (a skiddy could push it into the room).
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    #[inline]
    fn followers<const D: usize>(
        &self,
        before: State,
        moves: (u32, u32),
        stop: u32,
        ticks: u32,
        group: u32,
    ) -> Option<u32> {
        let across = line_through::<D>(stop.trailing_zeros() as usize);
        let behind = facing::<D>(stop) & across & moves.1;
        if behind == 0 {
            return Some(0);
        }
        let crates = before.mask(CRATE);
        if behind & crates != 0 {
            return None;
        }
        let start = _pdep_u32(_pext_u32(behind, moves.1 & across), moves.0 & across);
        let slide = Slide::of::<D>(moves, start.trailing_zeros() as usize);
        if slide.cells < ticks || slide.after::<D>(ticks) & group != 0 {
            return Some(0);
        }
        let lined_up = run_behind::<D>(behind, moves.1 & across & !crates);
        let room_faces_goal = stop & (self.exit_floor[D] | self.exit_pit[D]) != 0;
        let other_leavers = (group & across).count_ones() > 1;
        (lined_up & self.board.pits == 0 && !room_faces_goal && !other_leavers).then_some(lined_up)
    }
}

/// The skiddies off an exit line that leave with its run, and the pieces that follow
/// into their room, by their cells in the move without exits.
#[derive(Clone, Copy, Default)]
struct Joined {
    gone: u32,
    followers: u32,
}

/// One piece's slide in a move without exits: the cells it starts and ends on, and
/// how many cells apart they are.
#[derive(Clone, Copy, Default)]
struct Slide {
    start: u32,
    stop: u32,
    cells: u32,
}

impl Slide {
    /// The slide toward D of the piece on `cell` (`moves`: the occupancy before and
    /// after the move). Pieces keep their order along a line, so its end is as many
    /// pieces in.
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    #[inline]
    fn of<const D: usize>(moves: (u32, u32), cell: usize) -> Slide {
        let across = line_through::<D>(cell);
        let stop = _pdep_u32(_pext_u32(bit(cell), moves.0 & across), moves.1 & across);
        let cells = cells_between::<D>(cell, stop.trailing_zeros() as usize);
        Slide {
            start: bit(cell),
            stop,
            cells,
        }
    }

    /// Where the piece stands after `ticks` ticks: it slides one cell a tick until it
    /// stops.
    #[inline(always)]
    fn after<const D: usize>(self, ticks: u32) -> u32 {
        advance_by::<D>(self.start, self.cells.min(ticks))
    }
}

/// The cells of `cells`, one by one.
fn cells_of(mut cells: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let cell = cells.trailing_zeros() as usize;
        cells &= cells.wrapping_sub(1);
        (cell < 32).then_some(cell)
    })
}

/// The cells of `cells`'s neighbours off their lines toward D (the lines beside).
#[inline(always)]
fn beside<const D: usize>(cells: u32) -> u32 {
    beside_any(D, cells)
}

/// [`beside`] for a direction known at run time.
#[inline(always)]
fn beside_any(d: usize, cells: u32) -> u32 {
    if d < 2 {
        ((cells << 1) & !COL_FIRST) | ((cells >> 1) & !COL_LAST)
    } else {
        (cells << STRIDE) | (cells >> STRIDE)
    }
}

/// The whole row or column through `cell` along D.
#[inline(always)]
fn line_through<const D: usize>(cell: usize) -> u32 {
    if D < 2 { COLUMN_OF[cell] } else { ROW_OF[cell] }
}

/// The cell of `cells` (non-empty) farthest along D.
#[inline(always)]
fn farthest<const D: usize>(cells: u32) -> usize {
    if D == 1 || D == 3 {
        31 - cells.leading_zeros() as usize
    } else {
        cells.trailing_zeros() as usize
    }
}

/// How many cells apart two cells of one line along D are.
#[inline(always)]
fn cells_between<const D: usize>(a: usize, b: usize) -> u32 {
    let apart = a.abs_diff(b) as u32;
    if D < 2 { apart / STRIDE as u32 } else { apart }
}

/// `from` and the cells of `within` lined up behind it along D, one after the other.
#[inline(always)]
fn run_behind<const D: usize>(from: u32, within: u32) -> u32 {
    let mut run = from;
    loop {
        let grown = run | (facing::<D>(run) & within);
        if grown == run {
            return run;
        }
        run = grown;
    }
}

/// `cells` moved `steps` cells along D (callers keep them inside their line).
#[inline(always)]
fn advance_by<const D: usize>(cells: u32, steps: u32) -> u32 {
    match D {
        0 => cells >> (STRIDE as u32 * steps),
        1 => cells << (STRIDE as u32 * steps),
        2 => cells >> steps,
        _ => cells << steps,
    }
}

/// `cells` moved `steps` cells back against D (callers keep them inside their line).
#[inline(always)]
fn retreat_by<const D: usize>(cells: u32, steps: u32) -> u32 {
    match D {
        0 => cells << (STRIDE as u32 * steps),
        1 => cells >> (STRIDE as u32 * steps),
        2 => cells << steps,
        _ => cells >> steps,
    }
}

/// [`Board::tilt_by`] for the rare moves with a push, kept out of the search's loop
/// (whose registers it would take), with the search's bit instructions.
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
fn tilt_out_of_line<const D: usize>(board: &Board, state: State) -> State {
    board.tilt_by::<D>(state)
}

/// The moves with an exit, out of line as above: along the exit lines where that is
/// exact (`on_floor`: where skiddies end facing their goal; `in_pit`: where one starts
/// facing it in a pit), else by [`Board::ticks_by`].
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
fn exit_out_of_line<const D: usize>(
    moves: &LineMoves,
    state: State,
    moved: State,
    on_floor: u32,
    in_pit: u32,
) -> State {
    let along_lines = if in_pit == 0 {
        // SAFETY: this function runs with BMI2.
        unsafe { moves.exits_along_lines::<D>(state, moved, on_floor) }
    } else {
        None
    };
    along_lines.unwrap_or_else(|| moves.board.ticks_by::<D>(state))
}

/// `_pext_u64` outside the hot path, without BMI2 (the table is filled rarely).
fn pext64(value: u64, mask: u64) -> usize {
    let mut key = 0;
    let mut out = 0;
    for bit in 0..64 {
        if mask >> bit & 1 != 0 {
            key |= ((value >> bit & 1) as usize) << out;
            out += 1;
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};

    use super::*;
    use crate::cpu::bit_instructions;
    use crate::skiddy::SkiddyLevel;
    use crate::skiddy::rules::validate;

    /// How many moves of a search had a push, an exit, and an exit that took a skiddy
    /// off every line to a goal of its colour (one that left in another's group), for
    /// the tests to check they were met.
    #[derive(Default)]
    struct Met {
        pushes: usize,
        exits: usize,
        joins: usize,
    }

    /// Every position reachable from the start of `rows` (up to `cap`) moved by the line
    /// tables and by [`Board::tilts`]: the same boards.
    fn agree(rows: &[&str], cap: usize) -> Met {
        agree_on(
            &SkiddyLevel {
                width: rows[0].len(),
                height: rows.len(),
                grid: rows.iter().map(|r| r.to_string()).collect(),
            },
            cap,
        )
    }

    fn agree_on(level: &SkiddyLevel, cap: usize) -> Met {
        validate(level).unwrap();
        let (board, start) = Board::compile(level);
        let mut lines = LineMoves::new(&board);
        let (mut seen, mut queue) = (HashSet::from([start]), VecDeque::from([start]));
        let mut met = Met::default();
        while let Some(state) = queue.pop_front() {
            // SAFETY: the callers checked for BMI2.
            let by_lines = unsafe { lines.tilts(state) };
            let expected = board.tilts(state);
            assert_eq!(by_lines, expected, "the moves of {state:?}");
            for (d, next) in Dir::ALL.into_iter().zip(expected) {
                met.pushes += usize::from(next.mask(CRATE) != state.mask(CRATE));
                met.exits +=
                    usize::from(next.skiddies().count_ones() < state.skiddies().count_ones());
                met.joins += usize::from(took_a_joiner(&board, state, d, next));
                if seen.len() < cap && seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        met
    }

    /// Whether the move from `state` toward `d` to `next` took a skiddy that stood off
    /// every line to a goal of its colour: fewer are left than stood there.
    fn took_a_joiner(board: &Board, state: State, d: Dir, next: State) -> bool {
        (RED..RED + COLOURS as u8).any(|colour| {
            let exits = board.exits(colour, d);
            let off_lines = (0..32)
                .filter(|&cell| state.mask(colour) & bit(cell) != 0)
                .filter(|&cell| (bit(cell) | board.ray(d.index(), cell)) & exits == 0)
                .count();
            (next.mask(colour).count_ones() as usize) < off_lines
        })
    }

    /// A random board with goals on its left and right sides too, so that exits go
    /// along rows as well as columns.
    fn with_side_goals(seed: u64) -> SkiddyLevel {
        let mut level = crate::skiddy::tests::random_level(seed);
        let (w, h) = (level.width, level.height);
        let mut rows: Vec<Vec<char>> = level.grid.iter().map(|r| r.chars().collect()).collect();
        rows[1 + seed as usize % (h - 2)][0] = 'Y';
        rows[1 + (seed as usize / 3) % (h - 2)][w - 1] = 'R';
        level.grid = rows.into_iter().map(|r| r.into_iter().collect()).collect();
        level
    }

    #[test]
    fn line_tables_move_as_the_slide_does() {
        if !bit_instructions() {
            return;
        }
        // Crates pushed along rows and columns, into and out of pits; pits on a goal's
        // line; goals of four colours on every side; ice.
        let boards: [&[&str]; 4] = [
            &super::super::BIG_LEVEL,
            &["#######", "#rcO.iR", "#y...#Y", "#######"],
            &[
                "###Y####", "#r.O.cbB", "G.c.y..#", "#.gO.r.#", "#i.#.O.#", "#y..c.g#", "###R####",
            ],
            &[
                "#######", "#.O.rr#", "Rr.c..#", "#O.yyO#", "#.c.i.Y", "#######",
            ],
        ];
        for rows in boards {
            let met = agree(rows, 60_000);
            assert!(
                met.pushes > 0 && met.exits > 0,
                "{rows:?}: {} pushes, {} exits",
                met.pushes,
                met.exits
            );
        }
    }

    /// A full inner area, crates beside goals: every cell an end and exits flagged, but
    /// no push, so the entries' OR is not taken for an entry not filled.
    #[test]
    fn a_full_board_is_not_taken_for_unfilled_entries() {
        if !bit_instructions() {
            return;
        }
        let full = [
            "########", "#rcicir#", "YcicicrR", "#icicic#", "#cicici#", "Gricicc#", "###B####",
        ];
        let exits = agree(&full, 100).exits;
        assert!(exits > 0, "{exits} exits");
    }

    /// Random boards (pits, crates, ice, goals of two colours on top and bottom, and on
    /// the sides too), the benchmark level's whole graph and generated levels, where
    /// exits along the lines meet groups that reach beside them.
    #[test]
    fn line_tables_move_as_the_slide_does_on_random_boards() {
        if !bit_instructions() {
            return;
        }
        let random = (0..300).map(crate::skiddy::tests::random_level);
        let sided = (0..300).map(with_side_goals);
        let generated = crate::core::Difficulty::ALL.into_iter().map(|difficulty| {
            let stop = crate::core::Stop::never();
            crate::game::generate_level::<crate::skiddy::Skiddy>(difficulty, 7, &stop)
                .unwrap()
                .level
        });
        let bench = <crate::skiddy::Skiddy as crate::core::Puzzle>::bench_level();
        let (mut exits, mut joins) = (0, 0);
        for level in random.chain(sided).chain(generated) {
            let met = agree_on(&level, 20_000);
            (exits, joins) = (exits + met.exits, joins + met.joins);
        }
        let met = agree_on(&bench, usize::MAX);
        assert!(
            exits > 10_000 && joins > 1_000,
            "{exits} exits, {joins} joins"
        );
        assert!(
            met.joins > 10_000,
            "{} joins on the benchmark level",
            met.joins
        );
    }
}
