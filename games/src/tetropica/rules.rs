//! Tetropica rules (games/src/tetropica/README.md) on `u128` bitboards: cell (x, y) at bit `y * width + x`,
//! so every board up to 11x11 fits one word.

use crate::core::RuleError;
use crate::grid;

use super::{Placement, TetropicaLevel};

/// The piece letters, in the order used for kinds, hands and displays.
pub const PIECE_LETTERS: &str = "IOTSZJL";
pub const KINDS: usize = 7;
/// Largest board side: 11x11 = 121 cells fit a `u128`.
pub const MAX_SIDE: usize = 11;
/// Largest hand: a 4-bit count per kind in [`Hand`].
pub const MAX_HAND: usize = 15;

/// A shape as four (x, y) cells.
pub type Shape = [(i32, i32); 4];

/// Each kind in one orientation (standard Tetris shapes; J and L, S and Z are mirrors).
const BASE: [Shape; KINDS] = [
    [(0, 0), (1, 0), (2, 0), (3, 0)], // I
    [(0, 0), (1, 0), (0, 1), (1, 1)], // O
    [(0, 0), (1, 0), (2, 0), (1, 1)], // T
    [(1, 0), (2, 0), (0, 1), (1, 1)], // S
    [(0, 0), (1, 0), (1, 1), (2, 1)], // Z
    [(0, 0), (0, 1), (1, 1), (2, 1)], // J
    [(2, 0), (0, 1), (1, 1), (2, 1)], // L
];

pub fn kind_of(letter: char) -> Option<usize> {
    PIECE_LETTERS.chars().position(|c| c == letter)
}

pub fn letter_of(kind: usize) -> char {
    PIECE_LETTERS.as_bytes()[kind] as char
}

/// Moves a shape so that its smallest x and y are 0 and sorts its cells in reading order:
/// two placements have the same shape exactly when their normal forms are equal.
pub fn normalize(cells: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let min_x = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let min_y = cells.iter().map(|c| c.1).min().unwrap_or(0);
    let mut out: Vec<(i32, i32)> = cells.iter().map(|&(x, y)| (x - min_x, y - min_y)).collect();
    out.sort_unstable_by_key(|&(x, y)| (y, x));
    out
}

/// The distinct rotations of a kind (never its mirror image), normalized.
pub fn orientations(kind: usize) -> Vec<Vec<(i32, i32)>> {
    let mut shape: Vec<(i32, i32)> = BASE[kind].to_vec();
    let mut out: Vec<Vec<(i32, i32)>> = Vec::new();
    for _ in 0..4 {
        let normal = normalize(&shape);
        if !out.contains(&normal) {
            out.push(normal);
        }
        shape = shape.iter().map(|&(x, y)| (-y, x)).collect();
    }
    out
}

/// The kind whose rotations include this shape, if the cells form a tetromino.
pub fn kind_of_shape(cells: &[(i32, i32)]) -> Option<usize> {
    let normal = normalize(cells);
    (0..KINDS).find(|&k| orientations(k).contains(&normal))
}

/// A multiset of pieces: a 4-bit count per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hand(u32);

impl Hand {
    /// The hand of a valid `pieces` string (letters checked by [`validate`]).
    pub fn from_letters(letters: &str) -> Hand {
        letters
            .chars()
            .filter_map(kind_of)
            .fold(Hand::default(), Hand::with)
    }

    pub fn count(self, kind: usize) -> u32 {
        (self.0 >> (4 * kind)) & 0xf
    }

    pub fn has(self, kind: usize) -> bool {
        self.count(kind) > 0
    }

    pub fn total(self) -> u32 {
        (0..KINDS).map(|k| self.count(k)).sum()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds held at least once, as a 7-bit set.
    pub fn kinds(self) -> usize {
        (0..KINDS)
            .filter(|&k| self.has(k))
            .fold(0, |set, k| set | 1 << k)
    }

    /// The hand with one more piece of `kind` (at most [`MAX_HAND`] in all).
    pub fn with(self, kind: usize) -> Hand {
        debug_assert!(self.count(kind) < 15);
        Hand(self.0 + (1 << (4 * kind)))
    }

    /// The hand with one piece of `kind` used up (`kind` must be held).
    pub fn take(self, kind: usize) -> Hand {
        debug_assert!(self.has(kind));
        Hand(self.0 - (1 << (4 * kind)))
    }

    /// The pieces as letters in `IOTSZJL` order.
    pub fn letters(self) -> String {
        (0..KINDS)
            .flat_map(|k| std::iter::repeat_n(letter_of(k), self.count(k) as usize))
            .collect()
    }
}

/// The static part of a level, compiled to bitboards.
#[derive(Clone, Debug)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    pub inside: u128,
    pub rock: u128,
    /// Destructible tiles `o`.
    pub tiles: u128,
    /// Empty cells at the start: `.`, `S` and `E`.
    pub empty: u128,
    pub start: u128,
    pub end: u128,
    pub hand: Hand,
    not_first_column: u128,
    not_last_column: u128,
}

impl Board {
    /// Compiles a level that passed [`validate`].
    pub fn compile(level: &TetropicaLevel) -> Board {
        let (w, h) = (level.width, level.height);
        let mut board = Board {
            width: w,
            height: h,
            inside: 0,
            rock: 0,
            tiles: 0,
            empty: 0,
            start: 0,
            end: 0,
            hand: Hand::from_letters(&level.pieces),
            not_first_column: 0,
            not_last_column: 0,
        };
        for (x, y, c) in grid::cells(&level.grid) {
            let b = board.bit(x, y);
            board.inside |= b;
            match c {
                '#' => board.rock |= b,
                'o' => board.tiles |= b,
                _ => board.empty |= b,
            }
            match c {
                'S' => board.start |= b,
                'E' => board.end |= b,
                _ => {}
            }
            if x != 0 {
                board.not_first_column |= b;
            }
            if x != w - 1 {
                board.not_last_column |= b;
            }
        }
        board
    }

    pub fn bit(&self, x: usize, y: usize) -> u128 {
        1u128 << (y * self.width + x)
    }

    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.width, cell / self.width)
    }

    /// The cells orthogonally next to some cell of `m` (may include cells of `m`).
    #[inline]
    pub fn neighbours(&self, m: u128) -> u128 {
        (((m << 1) & self.not_first_column)
            | ((m >> 1) & self.not_last_column)
            | (m << self.width)
            | (m >> self.width))
            & self.inside
    }

    /// Everything connected to `seed` through cells of `within` (`seed` included).
    #[inline]
    pub fn flood(&self, seed: u128, within: u128) -> u128 {
        let mut reached = seed;
        loop {
            let next = reached | (self.neighbours(reached) & within);
            if next == reached {
                return reached;
            }
            reached = next;
        }
    }

    /// Whether S and E are joined by empty cells once the `carved` tiles are gone.
    pub fn joined(&self, carved: u128) -> bool {
        self.flood(self.start, self.empty | carved) & self.end != 0
    }

    /// Whether the `carved` tiles can be removed by legal placements in some order: every
    /// part of them must hang together with an initially empty cell (a piece becomes
    /// legal once a neighbour is empty, and empty cells only grow).
    pub fn orderable(&self, carved: u128) -> bool {
        carved & !self.flood(self.empty, self.empty | carved) == 0
    }
}

/// Iterates the set bits of a word, lowest first.
pub fn bits(mut m: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// Checks every rule of the tetropica level format.
pub fn validate(level: &TetropicaLevel) -> Result<(), RuleError> {
    let (w, h) = (level.width, level.height);
    grid::check_shape(&level.grid, w, h, (1, 1), (MAX_SIDE, MAX_SIDE), "#o.SE")?;
    for (mark, rule, name) in [
        ('S', "tetropica.start", "start"),
        ('E', "tetropica.end", "end"),
    ] {
        let n = grid::cells(&level.grid)
            .filter(|&(_, _, c)| c == mark)
            .count();
        if n != 1 {
            return Err(RuleError::new(
                rule,
                format!("the grid has {n} `{mark}` cells; a level has exactly one {name}"),
            ));
        }
    }
    if let Some(c) = level.pieces.chars().find(|&c| kind_of(c).is_none()) {
        return Err(RuleError::new(
            "tetropica.pieces",
            format!("`pieces` holds `{c}`: pieces are letters from {PIECE_LETTERS}"),
        ));
    }
    let n = level.pieces.chars().count();
    if n > MAX_HAND {
        return Err(RuleError::new(
            "tetropica.hand_size",
            format!("`pieces` holds {n} pieces; a hand holds at most {MAX_HAND}"),
        ));
    }
    Ok(())
}

/// Where a replay stands: the tiles carved so far and the pieces still held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Play {
    pub carved: u128,
    pub hand: Hand,
}

impl Play {
    pub fn start(board: &Board) -> Play {
        Play {
            carved: 0,
            hand: board.hand,
        }
    }

    /// Applies placement number `index` (0-based) if legal; the error says what is wrong.
    pub fn place(
        &mut self,
        board: &Board,
        placement: &Placement,
        index: usize,
    ) -> Result<(), RuleError> {
        let n = index + 1;
        let kind = self.held_kind(placement, n)?;
        let cells = cells_inside(board, placement, n)?;
        let shape: Vec<(i32, i32)> = cells.iter().map(|&(x, y)| (x as i32, y as i32)).collect();
        if !orientations(kind).contains(&normalize(&shape)) {
            let piece = letter_of(kind);
            let what = match kind_of_shape(&shape) {
                Some(other) => format!("they form {}", article(letter_of(other))),
                None => "they do not form a tetromino".to_string(),
            };
            return Err(RuleError::new(
                "move.shape",
                format!(
                    "placement {n}: the cells are not a rotation of {}: {what} (mirror images are different pieces)",
                    article(piece)
                ),
            ));
        }
        let mut mask = 0u128;
        for &(x, y) in &cells {
            let b = board.bit(x, y);
            if board.tiles & !self.carved & b == 0 {
                let what = if board.rock & b != 0 {
                    "indestructible rock"
                } else {
                    "already empty"
                };
                return Err(RuleError::new(
                    "move.not_destructible",
                    format!(
                        "placement {n}: cell ({x},{y}) is {what}; a piece may only cover destructible tiles"
                    ),
                ));
            }
            mask |= b;
        }
        if board.neighbours(mask) & (board.empty | self.carved) == 0 {
            return Err(RuleError::new(
                "move.not_adjacent",
                format!("placement {n}: no cell of the piece is next to an empty cell"),
            ));
        }
        self.carved |= mask;
        self.hand = self.hand.take(kind);
        Ok(())
    }

    fn held_kind(&self, placement: &Placement, n: usize) -> Result<usize, RuleError> {
        let mut letters = placement.piece.chars();
        let kind = match (letters.next(), letters.next()) {
            (Some(c), None) => kind_of(c),
            _ => None,
        };
        let Some(kind) = kind else {
            return Err(RuleError::new(
                "move.piece",
                format!(
                    "placement {n}: piece `{}` is not one of the letters {PIECE_LETTERS}",
                    placement.piece
                ),
            ));
        };
        if !self.hand.has(kind) {
            let held = self.hand.letters();
            return Err(RuleError::new(
                "move.not_held",
                format!(
                    "placement {n}: no {} is left to place (still held: `{held}`)",
                    letter_of(kind)
                ),
            ));
        }
        Ok(kind)
    }
}

fn article(letter: char) -> String {
    match letter {
        'I' | 'O' | 'S' | 'L' => format!("an {letter}"),
        _ => format!("a {letter}"),
    }
}

/// The four cells of a placement, each inside the grid and distinct.
fn cells_inside(
    board: &Board,
    placement: &Placement,
    n: usize,
) -> Result<Vec<(usize, usize)>, RuleError> {
    let mut cells = Vec::with_capacity(4);
    for &[x, y] in &placement.cells {
        if x < 0 || y < 0 || x as usize >= board.width || y as usize >= board.height {
            return Err(RuleError::new(
                "move.outside",
                format!(
                    "placement {n}: cell ({x},{y}) is outside the {}x{} grid",
                    board.width, board.height
                ),
            ));
        }
        let cell = (x as usize, y as usize);
        if !cells.contains(&cell) {
            cells.push(cell);
        }
    }
    if placement.cells.len() != 4 || cells.len() != 4 {
        return Err(RuleError::new(
            "move.cells",
            format!(
                "placement {n}: a piece covers four distinct cells, got {} cells ({} distinct)",
                placement.cells.len(),
                cells.len()
            ),
        ));
    }
    Ok(cells)
}

/// Vestberg's distance matrix: breadth-first steps from E to every cell. With
/// `through_rock` (the report's first version, its Figure 2) rock counts as an ordinary
/// cell; without it (the improved version, Figure 4) the search never enters rock, and
/// rock and cells cut off from E have no distance.
pub fn distance_matrix(board: &Board, through_rock: bool) -> Vec<Option<u32>> {
    let passable = if through_rock {
        board.inside
    } else {
        board.inside & !board.rock
    };
    let mut dist = vec![None; board.width * board.height];
    let mut reached = board.end;
    let mut ring = board.end;
    let mut d = 0;
    while ring != 0 {
        for cell in bits(ring) {
            dist[cell] = Some(d);
        }
        let next = board.neighbours(ring) & passable & !reached;
        reached |= next;
        ring = next;
        d += 1;
    }
    dist
}

/// For every cell, the fewest tiles that must be carved on a path from it to E (the
/// cell itself included; empty cells cost nothing, rock is impassable): a 0-1 BFS.
/// `u8::MAX` where E cannot be reached.
pub fn carve_distance(board: &Board) -> [u8; 128] {
    let mut cost = [u8::MAX; 128];
    for (k, layer) in carve_layers(board, board.tiles).iter().enumerate() {
        for cell in bits(*layer) {
            cost[cell] = k as u8;
        }
    }
    cost
}

/// The 0-1 BFS of [`carve_distance`] through the given tiles only, as layers: layer k
/// holds the cells from which E is k carved tiles away.
pub fn carve_layers(board: &Board, tiles: u128) -> Vec<u128> {
    let mut layers = Vec::new();
    let mut done = 0u128;
    // Empty cells spread within a layer; each tile starts the next one.
    let mut layer = board.flood(board.end, board.empty);
    while layer != 0 {
        layers.push(layer);
        done |= layer;
        let next = board.neighbours(layer) & tiles & !done;
        layer = board.flood(next, board.empty & !done);
    }
    layers
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn level(rows: &[&str], pieces: &str) -> TetropicaLevel {
        TetropicaLevel {
            width: rows[0].chars().count(),
            height: rows.len(),
            grid: rows.iter().map(|r| r.to_string()).collect(),
            pieces: pieces.to_string(),
        }
    }

    fn placement(piece: &str, cells: &[(i64, i64)]) -> Placement {
        Placement {
            piece: piece.to_string(),
            cells: cells.iter().map(|&(x, y)| [x, y]).collect(),
        }
    }

    fn place(rows: &[&str], pieces: &str, moves: &[Placement]) -> Result<Play, RuleError> {
        let board = Board::compile(&level(rows, pieces));
        let mut play = Play::start(&board);
        for (i, m) in moves.iter().enumerate() {
            play.place(&board, m, i)?;
        }
        Ok(play)
    }

    fn rule_of(rows: &[&str], pieces: &str, moves: &[Placement]) -> &'static str {
        place(rows, pieces, moves).unwrap_err().rule
    }

    #[test]
    fn seven_kinds_have_nineteen_orientations() {
        let counts: Vec<usize> = (0..KINDS).map(|k| orientations(k).len()).collect();
        assert_eq!(counts, vec![2, 1, 4, 2, 2, 4, 4]);
    }

    #[test]
    fn letter_shapes_are_their_own_pieces() {
        // The letter J (hook to the lower left) is a J; the letter L (foot to the right)
        // an L; "S" runs up to the right, "Z" down to the right.
        assert_eq!(
            kind_of_shape(&[(1, 0), (1, 1), (1, 2), (0, 2)]),
            kind_of('J')
        );
        assert_eq!(
            kind_of_shape(&[(0, 0), (0, 1), (0, 2), (1, 2)]),
            kind_of('L')
        );
        assert_eq!(
            kind_of_shape(&[(1, 0), (2, 0), (0, 1), (1, 1)]),
            kind_of('S')
        );
        assert_eq!(
            kind_of_shape(&[(0, 0), (1, 0), (1, 1), (2, 1)]),
            kind_of('Z')
        );
        assert_eq!(
            kind_of_shape(&[(0, 0), (1, 0), (2, 0), (1, 1)]),
            kind_of('T')
        );
        assert_eq!(kind_of_shape(&[(0, 0), (1, 1), (2, 2), (3, 3)]), None);
    }

    #[test]
    fn hands_count_and_spell_in_piece_order() {
        let hand = Hand::from_letters("LITLO");
        assert_eq!(hand.total(), 5);
        assert_eq!(hand.count(kind_of('L').unwrap()), 2);
        assert_eq!(hand.letters(), "IOTLL");
        assert_eq!(hand.take(kind_of('L').unwrap()).letters(), "IOTL");
        assert!(!hand.has(kind_of('Z').unwrap()));
    }

    const ROW: [&str; 1] = ["SooooE"];

    #[test]
    fn a_legal_placement_empties_its_tiles_and_uses_the_piece() {
        let play = place(
            &ROW,
            "IO",
            &[placement("I", &[(1, 0), (2, 0), (3, 0), (4, 0)])],
        )
        .unwrap();
        assert_eq!(play.carved.count_ones(), 4);
        assert_eq!(play.hand.letters(), "O");
        let board = Board::compile(&level(&ROW, "IO"));
        assert!(board.joined(play.carved));
        assert!(!board.joined(0));
    }

    #[test]
    fn the_cells_may_be_listed_in_any_order() {
        assert!(
            place(
                &ROW,
                "I",
                &[placement("I", &[(4, 0), (2, 0), (1, 0), (3, 0)])]
            )
            .is_ok()
        );
    }

    #[test]
    fn a_piece_not_held_is_refused() {
        let i = placement("I", &[(1, 0), (2, 0), (3, 0), (4, 0)]);
        assert_eq!(
            rule_of(&ROW, "O", std::slice::from_ref(&i)),
            "move.not_held"
        );
        // The second I of a hand holding one.
        let rows = ["SoooooooooE"];
        let second = placement("I", &[(5, 0), (6, 0), (7, 0), (8, 0)]);
        assert_eq!(rule_of(&rows, "I", &[i, second]), "move.not_held");
        assert_eq!(rule_of(&ROW, "I", &[placement("X", &[])]), "move.piece");
        assert_eq!(rule_of(&ROW, "I", &[placement("IL", &[])]), "move.piece");
    }

    #[test]
    fn cells_must_be_four_distinct_cells_inside_the_grid() {
        let three = placement("I", &[(1, 0), (2, 0), (3, 0)]);
        assert_eq!(rule_of(&ROW, "I", &[three]), "move.cells");
        let repeated = placement("I", &[(1, 0), (2, 0), (3, 0), (3, 0)]);
        assert_eq!(rule_of(&ROW, "I", &[repeated]), "move.cells");
        let outside = placement("I", &[(-1, 0), (0, 0), (1, 0), (2, 0)]);
        assert_eq!(rule_of(&ROW, "I", &[outside]), "move.outside");
        let below = placement("I", &[(1, 1), (2, 1), (3, 1), (4, 1)]);
        assert_eq!(rule_of(&ROW, "I", &[below]), "move.outside");
    }

    #[test]
    fn cells_must_be_a_rotation_of_the_piece_and_mirrors_differ() {
        let rows = ["Sooo", "oooo", "oooE"];
        // (1,0),(1,1),(1,2),(0,2) is the letter J; declared as an L it is refused.
        let j_cells = [(1, 0), (1, 1), (1, 2), (0, 2)];
        assert!(place(&rows, "J", &[placement("J", &j_cells)]).is_ok());
        let err = place(&rows, "L", &[placement("L", &j_cells)]).unwrap_err();
        assert_eq!(err.rule, "move.shape");
        assert!(err.message.contains("form a J"), "{}", err.message);
        // An S (touching S at (1,0)) is not a Z.
        let s_cells = [(1, 0), (2, 0), (0, 1), (1, 1)];
        assert!(place(&rows, "S", &[placement("S", &s_cells)]).is_ok());
        assert_eq!(
            rule_of(&rows, "Z", &[placement("Z", &s_cells)]),
            "move.shape"
        );
        // Four cells that are no tetromino at all.
        let scattered = [(1, 0), (3, 0), (1, 2), (2, 2)];
        let err = place(&rows, "T", &[placement("T", &scattered)]).unwrap_err();
        assert_eq!(err.rule, "move.shape");
        assert!(err.message.contains("not form a tetromino"));
    }

    #[test]
    fn every_cell_must_be_a_destructible_tile() {
        let rows = ["So#oE", "ooooo"];
        // Over rock.
        let t = placement("T", &[(1, 0), (2, 0), (3, 0), (2, 1)]);
        let err = place(&rows, "T", &[t]).unwrap_err();
        assert_eq!(err.rule, "move.not_destructible");
        assert!(err.message.contains("(2,0) is indestructible rock"));
        // Over the start.
        let over_start = placement("I", &[(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(rule_of(&rows, "I", &[over_start]), "move.not_destructible");
        // Over tiles an earlier piece already carved.
        let first = placement("I", &[(0, 1), (1, 1), (2, 1), (3, 1)]);
        let overlap = placement("I", &[(1, 1), (2, 1), (3, 1), (4, 1)]);
        let err = place(&rows, "II", &[first, overlap]).unwrap_err();
        assert_eq!(err.rule, "move.not_destructible");
        assert!(err.message.contains("already empty"));
    }

    #[test]
    fn a_piece_must_touch_an_empty_cell() {
        let rows = ["Soooooo", "ooooooo", "ooooooE"];
        // (2..=5, 1) touches no empty cell: S is at (0,0), E at (6,2).
        let floating = placement("I", &[(2, 1), (3, 1), (4, 1), (5, 1)]);
        assert_eq!(rule_of(&rows, "I", &[floating]), "move.not_adjacent");
        // Diagonal contact does not count: (1,1) is diagonal to S.
        let diagonal = placement("O", &[(1, 1), (2, 1), (1, 2), (2, 2)]);
        assert_eq!(rule_of(&rows, "O", &[diagonal]), "move.not_adjacent");
        // Next to E counts as much as next to S.
        let by_end = placement("I", &[(2, 2), (3, 2), (4, 2), (5, 2)]);
        assert!(place(&rows, "I", &[by_end]).is_ok());
        // Next to a cell carved by an earlier piece counts too, and so does a `.` cell.
        let first = placement("I", &[(1, 0), (2, 0), (3, 0), (4, 0)]);
        let second = placement("O", &[(3, 1), (4, 1), (3, 2), (4, 2)]);
        assert!(place(&rows, "IO", &[first, second]).is_ok());
        let dotted = ["Sooooo", "oooo.o", "oooooE"];
        let by_dot = placement("O", &[(2, 0), (3, 0), (2, 1), (3, 1)]);
        assert!(place(&dotted, "O", &[by_dot]).is_ok());
    }

    #[test]
    fn joined_needs_orthogonal_contact() {
        let board = Board::compile(&level(&["So", "oE"], ""));
        assert!(!board.joined(0));
        let board = Board::compile(&level(&["SE"], ""));
        assert!(board.joined(0));
        let board = Board::compile(&level(&["S.", "#E"], ""));
        assert!(board.joined(0));
    }

    #[test]
    fn orderable_needs_a_chain_to_an_empty_cell() {
        let board = Board::compile(&level(&["Soooooooo", "ooooooooE"], ""));
        let row0 = |from: usize, to: usize| (from..to).fold(0u128, |m, x| m | board.bit(x, 0));
        assert!(board.orderable(row0(1, 5)));
        assert!(board.orderable(row0(1, 9)));
        assert!(!board.orderable(row0(3, 7)));
    }

    /// Figure 2's board: S on the left edge, E on the right edge, four rock tiles.
    const FIGURE_2: [&str; 5] = ["oo#oo", "Sooo#", "oo#oo", "#oooE", "ooooo"];
    /// Figure 4's board: a diagonal of rock from the top-left corner.
    const FIGURE_4: [&str; 5] = ["#oooE", "o#ooo", "oo#oo", "Soo#o", "ooooo"];

    fn shown(rows: &[&str], matrix: &[Option<u32>]) -> Vec<String> {
        rows.iter()
            .enumerate()
            .map(|(y, row)| {
                row.chars()
                    .enumerate()
                    .map(|(x, c)| match c {
                        'o' => format!("{:>3}", matrix[y * row.len() + x].unwrap()),
                        c => format!("{c:>3}"),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn figure_2_first_distance_matrix_ignores_rock() {
        // The report's Figure 2, cell by cell (rock drawn blank there, `#` here).
        let board = Board::compile(&level(&FIGURE_2, ""));
        let matrix = distance_matrix(&board, true);
        assert_eq!(
            shown(&FIGURE_2, &matrix),
            vec![
                "  7  6  #  4  3",
                "  S  5  4  3  #",
                "  5  4  #  2  1",
                "  #  3  2  1  E",
                "  5  4  3  2  1",
            ]
        );
        // Ignoring rock, (4,0) looks 3 steps from E, though (4,1) is rock.
        assert_eq!(matrix[4], Some(3));
        assert_eq!(distance_matrix(&board, false)[4], Some(5));
    }

    #[test]
    fn figure_3_solution_scores_29_and_wins() {
        // Figure 3: a T (blue) and an I (green) join S and E; the cells they cover add up
        // to 6+5+4+4 + 3+4+2+1 = 29 in the Figure 2 matrix.
        let board = Board::compile(&level(&FIGURE_2, "TI"));
        let matrix = distance_matrix(&board, true);
        let t = [(1, 0), (1, 1), (2, 1), (1, 2)];
        let i = [(3, 0), (3, 1), (3, 2), (3, 3)];
        let score: u32 = t
            .iter()
            .chain(&i)
            .map(|&(x, y)| matrix[y * 5 + x].unwrap())
            .sum();
        assert_eq!(score, 29);
        let to_moves = |piece: &str, cells: &[(i64, i64)]| placement(piece, cells);
        let play = place(
            &FIGURE_2,
            "TI",
            &[
                to_moves("T", &[(1, 0), (1, 1), (2, 1), (1, 2)]),
                to_moves("I", &[(3, 0), (3, 1), (3, 2), (3, 3)]),
            ],
        )
        .unwrap();
        assert!(board.joined(play.carved));
    }

    #[test]
    fn figure_4_improved_distance_matrix_walks_around_rock() {
        let board = Board::compile(&level(&FIGURE_4, ""));
        let matrix = distance_matrix(&board, false);
        assert_eq!(
            shown(&FIGURE_4, &matrix),
            vec![
                "  #  3  2  1  E",
                " 11  #  3  2  1",
                " 10  9  #  3  2",
                "  S  8  7  #  3",
                "  8  7  6  5  4",
            ]
        );
        // S itself is 9 steps from E (via the bottom row); rock has no distance.
        assert_eq!(matrix[15], Some(9));
        assert_eq!(matrix[0], None);
    }

    #[test]
    fn carve_distance_counts_tiles_and_skips_empty_cells() {
        // The top route S . o E costs one tile, (2,0): the `.` and S cost nothing.
        let board = Board::compile(&level(&["S.oE", "oo#o", "oooo"], ""));
        let cost = carve_distance(&board);
        let at = |x: usize, y: usize| cost[y * 4 + x];
        assert_eq!(at(3, 0), 0);
        assert_eq!(at(2, 0), 1);
        assert_eq!(at(1, 0), 1); // `.` costs nothing; (2,0) remains
        assert_eq!(at(0, 0), 1);
        assert_eq!(at(3, 1), 1);
        assert_eq!(at(0, 1), 2); // itself, then S and `.` for free, then (2,0)
        assert_eq!(at(2, 1), u8::MAX); // rock
        assert_eq!(at(0, 2), 3);
    }

    #[test]
    fn validation_names_the_rule() {
        let rule = |rows: &[&str], pieces: &str| validate(&level(rows, pieces)).unwrap_err().rule;
        assert!(validate(&level(&["SooE"], "I")).is_ok());
        assert_eq!(rule(&["SooE", "SooE"], "I"), "tetropica.start");
        assert_eq!(rule(&["Sooo"], "I"), "tetropica.end");
        assert_eq!(rule(&["SEoE"], "I"), "tetropica.end");
        assert_eq!(rule(&["SooE"], "IX"), "tetropica.pieces");
        assert_eq!(rule(&["SooE"], "i"), "tetropica.pieces");
        assert_eq!(rule(&["SooE"], "IIIIIIIIIIIIIIII"), "tetropica.hand_size");
        assert_eq!(rule(&["SoxE"], "I"), "grid.cell");
        assert_eq!(rule(&["SooooooooooE"], "I"), "grid.size");
        let mut bad = level(&["SooE"], "I");
        bad.height = 2;
        assert_eq!(validate(&bad).unwrap_err().rule, "grid.height");
    }
}
