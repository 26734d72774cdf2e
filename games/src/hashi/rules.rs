//! Hashi Flow rules (games/src/hashi/README.md): the board, level validation and the replay of a list
//! of links. This is the reference the solver and the brute-force tests are checked
//! against, so it is written plainly, link by link, with no search.

use crate::core::{Dir, RuleError};
use crate::grid;

use super::HashiLevel;

pub const MIN_SIDE: usize = 4;
pub const MAX_SIDE: usize = 9;
/// Cells of the largest board.
pub const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;

/// A validated level: a square board of empty cells and numbered nodes, cell `y * n + x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub n: usize,
    /// 0 for an empty cell, the node's number (1..=4) for a node.
    pub number: Vec<u8>,
}

impl Board {
    /// Reads a level that passed [`validate`].
    pub fn parse(level: &HashiLevel) -> Board {
        let number = grid::cells(&level.grid)
            .map(|(_, _, c)| c.to_digit(10).map_or(0, |d| d as u8))
            .collect();
        Board {
            n: level.width,
            number,
        }
    }

    pub fn to_grid(&self) -> Vec<String> {
        self.number
            .chunks(self.n)
            .map(|row| {
                row.iter()
                    .map(|&k| if k == 0 { '.' } else { char::from(b'0' + k) })
                    .collect()
            })
            .collect()
    }

    pub fn cells(&self) -> usize {
        self.n * self.n
    }

    pub fn is_node(&self, cell: usize) -> bool {
        self.number[cell] != 0
    }

    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.n, cell / self.n)
    }

    pub fn cell(&self, x: usize, y: usize) -> usize {
        y * self.n + x
    }

    /// The cell next to `cell` in direction `d`, if it is on the board.
    pub fn neighbour(&self, cell: usize, d: Dir) -> Option<usize> {
        let (x, y) = self.xy(cell);
        let (dx, dy) = d.delta();
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        (nx >= 0 && ny >= 0 && (nx as usize) < self.n && (ny as usize) < self.n)
            .then(|| self.cell(nx as usize, ny as usize))
    }

    pub fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        Dir::ALL
            .into_iter()
            .filter_map(move |d| self.neighbour(cell, d))
    }

    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        let ((ax, ay), (bx, by)) = (self.xy(a), self.xy(b));
        ax.abs_diff(bx) + ay.abs_diff(by) == 1
    }

    pub fn empty_cells(&self) -> usize {
        self.number.iter().filter(|&&k| k == 0).count()
    }
}

/// Checks every rule of the level format.
pub fn validate(level: &HashiLevel) -> Result<(), RuleError> {
    let (w, h) = (level.width, level.height);
    grid::check_shape(
        &level.grid,
        w,
        h,
        (MIN_SIDE, MIN_SIDE),
        (MAX_SIDE, MAX_SIDE),
        ".1234",
    )?;
    if w != h {
        return Err(RuleError::new(
            "hashi.square",
            format!("the board is {w}x{h}: Hashi Flow boards are square"),
        ));
    }
    let board = Board::parse(level);
    for cell in 0..board.cells() {
        let number = board.number[cell];
        let sides = board
            .neighbours(cell)
            .filter(|&nb| !board.is_node(nb))
            .count();
        if usize::from(number) > sides {
            let (x, y) = board.xy(cell);
            return Err(RuleError::new(
                "hashi.node_sides",
                format!(
                    "the node at ({x},{y}) needs {number} links but has only {sides} empty \
                     neighbours, and a node takes at most one link end per side"
                ),
            ));
        }
    }
    Ok(())
}

/// One link as a client sends it: `[[ax,ay],[x1,y1],...,[bx,by]]`.
pub type LinkPoints = Vec<[i64; 2]>;

/// Checks that `points` draws a link by itself (two distinct nodes at the ends, a path of
/// one or more empty cells between them) and returns its cells, nodes included. A move
/// that is not a link at all is a malformed move list, hence a [`RuleError`].
pub fn link_cells(
    board: &Board,
    index: usize,
    points: &[[i64; 2]],
) -> Result<Vec<usize>, RuleError> {
    let checked = link_on_board(board, points).and_then(|cells| {
        link_ends(board, &cells)?;
        link_path(board, &cells)?;
        Ok(cells)
    });
    checked.map_err(|(rule, what)| RuleError::new(rule, format!("link {}: {what}", index + 1)))
}

/// A broken link rule: its id and what is wrong, before the link's number is put in front.
type LinkError = (&'static str, String);

/// The link's cells, each point on the board, at least a node, a cell and a node.
fn link_on_board(board: &Board, points: &[[i64; 2]]) -> Result<Vec<usize>, LinkError> {
    if points.len() < 3 {
        return Err((
            "hashi.link_length",
            format!(
                "has {} points; a link is a node, one or more empty cells, and a node",
                points.len()
            ),
        ));
    }
    let n = board.n as i64;
    points
        .iter()
        .map(|&[x, y]| {
            if (0..n).contains(&x) && (0..n).contains(&y) {
                Ok(board.cell(x as usize, y as usize))
            } else {
                Err((
                    "hashi.link_outside",
                    format!("({x},{y}) is outside the board"),
                ))
            }
        })
        .collect()
}

/// Both ends are nodes, and not the same one.
fn link_ends(board: &Board, cells: &[usize]) -> Result<(), LinkError> {
    let (first, last) = (cells[0], cells[cells.len() - 1]);
    for end in [first, last] {
        if !board.is_node(end) {
            let (x, y) = board.xy(end);
            return Err((
                "hashi.link_ends",
                format!("its end ({x},{y}) is not a node"),
            ));
        }
    }
    if first == last {
        let (x, y) = board.xy(first);
        return Err((
            "hashi.link_same_node",
            format!("both ends are the node at ({x},{y}); a link joins two different nodes"),
        ));
    }
    Ok(())
}

/// Between the ends: empty cells, each visited once, each a step from the one before.
fn link_path(board: &Board, cells: &[usize]) -> Result<(), LinkError> {
    for (i, &cell) in cells[1..cells.len() - 1].iter().enumerate() {
        let (x, y) = board.xy(cell);
        if board.is_node(cell) {
            return Err((
                "hashi.link_cells",
                format!(
                    "it runs through the node at ({x},{y}); links run through empty cells only"
                ),
            ));
        }
        if cells[1..=i].contains(&cell) {
            return Err(("hashi.link_revisit", format!("it visits ({x},{y}) twice")));
        }
    }
    for pair in cells.windows(2) {
        if !board.adjacent(pair[0], pair[1]) {
            let ((ax, ay), (bx, by)) = (board.xy(pair[0]), board.xy(pair[1]));
            return Err((
                "hashi.link_step",
                format!("({ax},{ay}) to ({bx},{by}) is not a step to an orthogonal neighbour"),
            ));
        }
    }
    Ok(())
}

/// Links drawn so far on a board, checked against every rule as they come.
pub struct Drawing<'a> {
    board: &'a Board,
    drawn: Drawn,
}

/// What a drawing holds besides its board: a position of its own, so that it can be
/// copied and compared (a simulated player's position, `play.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Drawn {
    /// Per cell of the largest board (arrays, not vectors: a simulated player copies and
    /// hashes positions by the thousand, and a copy is then one block with no allocation).
    covered: [bool; MAX_CELLS],
    ends: [u8; MAX_CELLS],
    /// Union-find over cells; only nodes are ever joined.
    parent: [u8; MAX_CELLS],
    /// Running counts, so that a link's verdict needs no pass over the board: empty cells
    /// on no link yet, and link ends the nodes still take.
    cells_left: usize,
    ends_owed: usize,
}

/// Where a drawing stands after a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No rule broken, and more links can still be drawn.
    Open,
    /// Every rule holds: the level is solved.
    Won,
    /// A rule is broken for good; the reason in words.
    Lost(String),
}

impl<'a> Drawing<'a> {
    pub fn new(board: &'a Board) -> Self {
        Drawing {
            board,
            drawn: Drawn::new(board),
        }
    }

    /// Adds a link that passed [`link_cells`] and says where the drawing stands.
    pub fn add(&mut self, cells: &[usize]) -> Verdict {
        self.drawn.add(self.board, cells)
    }

    /// Empty cells on no link yet.
    pub fn cells_left(&self) -> usize {
        self.drawn.cells_left
    }

    /// Nodes with fewer links than their number.
    pub fn nodes_unmet(&self) -> usize {
        (0..self.board.cells())
            .filter(|&c| self.drawn.spare(self.board, c) > 0)
            .count()
    }

    /// Won, lost, or open (see [`Drawn::verdict`]).
    pub fn verdict(&mut self) -> Verdict {
        self.drawn.verdict(self.board)
    }
}

impl Drawn {
    /// Nothing drawn yet on `board`.
    pub fn new(board: &Board) -> Drawn {
        debug_assert!(board.cells() <= MAX_CELLS);
        Drawn {
            covered: [false; MAX_CELLS],
            ends: [0; MAX_CELLS],
            parent: std::array::from_fn(|cell| cell as u8),
            cells_left: board.empty_cells(),
            ends_owed: board.number.iter().map(|&k| usize::from(k)).sum(),
        }
    }

    /// Whether a link already runs through `cell`.
    pub fn is_covered(&self, cell: usize) -> bool {
        self.covered[cell]
    }

    /// Links a node may still take (0 for a full node or an empty cell).
    pub fn spare(&self, board: &Board, cell: usize) -> u8 {
        board.number[cell] - self.ends[cell]
    }

    fn root(&mut self, mut cell: usize) -> usize {
        while usize::from(self.parent[cell]) != cell {
            self.parent[cell] = self.parent[usize::from(self.parent[cell])];
            cell = usize::from(self.parent[cell]);
        }
        cell
    }

    /// Adds a link on `board` that passed [`link_cells`] and says where the drawing stands.
    pub fn add(&mut self, board: &Board, cells: &[usize]) -> Verdict {
        let inner = &cells[1..cells.len() - 1];
        if let Some(&cell) = inner.iter().find(|&&c| self.covered[c]) {
            let (x, y) = board.xy(cell);
            return Verdict::Lost(format!(
                "({x},{y}) is already on another link; every empty cell lies on exactly one link"
            ));
        }
        let (a, b) = (cells[0], cells[cells.len() - 1]);
        for node in [a, b] {
            if self.ends[node] >= board.number[node] {
                let (x, y) = board.xy(node);
                return Verdict::Lost(format!(
                    "the node at ({x},{y}) would get more than its {} links",
                    board.number[node]
                ));
            }
        }
        for &cell in inner {
            self.covered[cell] = true;
        }
        self.cells_left -= inner.len();
        self.ends_owed -= 2;
        self.ends[a] += 1;
        self.ends[b] += 1;
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent[ra] = rb as u8;
        self.verdict(board)
    }

    /// Won, lost, or open: the drawing is over once every empty cell is covered or every
    /// node has all its links, since no further link could then be drawn.
    pub fn verdict(&mut self, board: &Board) -> Verdict {
        // Most links leave the drawing open: the nodes are listed only once it is over.
        // (No node takes more than its number, so one owed end is a node short of it.)
        if self.cells_left > 0 && self.ends_owed > 0 {
            return Verdict::Open;
        }
        let nodes: Vec<usize> = (0..board.cells()).filter(|&c| board.is_node(c)).collect();
        if let Some(cell) = (0..board.cells()).find(|&c| !board.is_node(c) && !self.covered[c]) {
            let (x, y) = board.xy(cell);
            return Verdict::Lost(format!(
                "every node has its links but ({x},{y}) lies on no link"
            ));
        }
        if let Some(&node) = nodes.iter().find(|&&c| self.ends[c] != board.number[c]) {
            let (x, y) = board.xy(node);
            return Verdict::Lost(format!(
                "every cell is covered but the node at ({x},{y}) has {} of its {} links",
                self.ends[node], board.number[node]
            ));
        }
        let Some(&first) = nodes.first() else {
            return Verdict::Lost("the board has no nodes to link".into());
        };
        let first = self.root(first);
        if nodes.iter().any(|&c| self.root(c) != first) {
            return Verdict::Lost("the links do not join all nodes into one network".into());
        }
        Verdict::Won
    }
}

/// Checks a whole solution (links as cell lists, nodes at the ends) against every rule.
pub fn is_solution(board: &Board, links: &[Vec<usize>]) -> bool {
    let mut drawing = Drawing::new(board);
    let mut verdict = drawing.verdict();
    for link in links {
        if verdict != Verdict::Open || link.len() < 3 {
            return false;
        }
        let points: Vec<[i64; 2]> = link
            .iter()
            .map(|&c| {
                let (x, y) = board.xy(c);
                [x as i64, y as i64]
            })
            .collect();
        if link_cells(board, 0, &points).is_err() {
            return false;
        }
        verdict = drawing.add(link);
    }
    verdict == Verdict::Won
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn level(rows: &[&str]) -> HashiLevel {
        HashiLevel {
            width: rows[0].len(),
            height: rows.len(),
            grid: rows.iter().map(|r| r.to_string()).collect(),
        }
    }

    pub fn cells_of(board: &Board, points: &[(usize, usize)]) -> Vec<usize> {
        points.iter().map(|&(x, y)| board.cell(x, y)).collect()
    }

    /// Worked on paper: five links, every node a 2, the nodes joined in one ring
    /// (0,0)-(3,0)-(1,2)-(3,3)-(0,3)-(0,0); the 11 empty cells each lie on one link.
    pub const RING: [&str; 4] = ["2..2", "....", ".2..", "2..2"];
    pub const RING_LINKS: [&[(usize, usize)]; 5] = [
        &[(0, 0), (1, 0), (2, 0), (3, 0)],
        &[(0, 0), (0, 1), (0, 2), (0, 3)],
        &[(3, 0), (3, 1), (2, 1), (1, 1), (1, 2)],
        &[(1, 2), (2, 2), (3, 2), (3, 3)],
        &[(0, 3), (1, 3), (2, 3), (3, 3)],
    ];

    /// Corners 1, middle nodes 2. Each middle node has exactly two empty sides, so both are
    /// used; each side pair of border cells is either bridged (the two cells join two
    /// middle nodes) or cornered (each cell joins its corner). A corner takes one link, so
    /// neighbouring sides choose differently: top = bottom != left = right. Both ways
    /// split the nodes into two halves: no solution, though degrees can be met twice.
    pub const SPLIT: [&str; 4] = ["1..1", ".22.", ".22.", "1..1"];

    fn play(board: &Board, links: &[&[(usize, usize)]]) -> Vec<Verdict> {
        let mut drawing = Drawing::new(board);
        links
            .iter()
            .map(|l| drawing.add(&cells_of(board, l)))
            .collect()
    }

    fn lost_with(verdict: &Verdict, words: &str) -> bool {
        matches!(verdict, Verdict::Lost(reason) if reason.contains(words))
    }

    #[test]
    fn validation_names_the_rule() {
        assert_eq!(validate(&level(&RING)), Ok(()));
        let rule = |rows: &[&str]| validate(&level(rows)).unwrap_err().rule;
        assert_eq!(rule(&["...", "...", "..."]), "grid.size");
        let mut tall = level(&["....", "....", "....", "...."]);
        tall.height = 5;
        assert_eq!(validate(&tall).unwrap_err().rule, "grid.height");
        assert_eq!(rule(&["....", "...", "....", "...."]), "grid.width");
        assert_eq!(rule(&["...5", "....", "....", "...."]), "grid.cell");
        assert_eq!(rule(&["#...", "....", "....", "...."]), "grid.cell");
        assert_eq!(rule(&["0...", "....", "....", "...."]), "grid.cell");
        // A corner has two sides; a corner node next to another node has one.
        assert_eq!(rule(&["3...", "....", "....", "...."]), "hashi.node_sides");
        assert_eq!(rule(&["21..", "....", "....", "...."]), "hashi.node_sides");
        assert_eq!(validate(&level(&["11..", "....", "....", "...."])), Ok(()));
        let ten = [".........."; 10];
        assert_eq!(rule(&ten), "grid.size");
        let wide = HashiLevel {
            width: 5,
            height: 4,
            grid: vec![".....".into(); 4],
        };
        assert_eq!(validate(&wide).unwrap_err().rule, "hashi.square");
    }

    #[test]
    fn link_shape_errors_name_the_rule() {
        let board = Board::parse(&level(&RING));
        let rule = |pts: &[[i64; 2]]| link_cells(&board, 0, pts).unwrap_err().rule;
        assert_eq!(rule(&[[0, 0], [3, 0]]), "hashi.link_length");
        assert_eq!(rule(&[]), "hashi.link_length");
        assert_eq!(rule(&[[0, 0], [1, 0], [4, 0]]), "hashi.link_outside");
        assert_eq!(rule(&[[0, 0], [1, 0], [-1, 0]]), "hashi.link_outside");
        assert_eq!(rule(&[[0, 0], [1, 0], [2, 0]]), "hashi.link_ends");
        assert_eq!(rule(&[[1, 0], [2, 0], [3, 0]]), "hashi.link_ends");
        assert_eq!(
            rule(&[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]),
            "hashi.link_same_node"
        );
        assert_eq!(
            rule(&[
                [0, 0],
                [1, 0],
                [2, 0],
                [2, 1],
                [1, 1],
                [1, 0],
                [2, 0],
                [3, 0]
            ]),
            "hashi.link_revisit"
        );
        assert_eq!(
            rule(&[[0, 0], [1, 0], [2, 1], [3, 1], [3, 0]]),
            "hashi.link_step"
        );
        assert_eq!(rule(&[[0, 0], [2, 0], [3, 0]]), "hashi.link_step");
        // A link never runs through a node, even one whose count has room.
        assert_eq!(
            rule(&[[0, 0], [0, 1], [1, 1], [1, 2], [2, 2], [3, 2], [3, 3]]),
            "hashi.link_cells"
        );
        assert_eq!(
            link_cells(&board, 0, &[[0, 0], [1, 0], [2, 0], [3, 0]]),
            Ok(cells_of(&board, RING_LINKS[0]))
        );
    }

    #[test]
    fn hand_worked_solution_wins_and_only_at_its_last_link() {
        let board = Board::parse(&level(&RING));
        let verdicts = play(&board, &RING_LINKS);
        assert_eq!(
            verdicts[..4],
            [Verdict::Open, Verdict::Open, Verdict::Open, Verdict::Open]
        );
        assert_eq!(verdicts[4], Verdict::Won);
        let links: Vec<Vec<usize>> = RING_LINKS.iter().map(|l| cells_of(&board, l)).collect();
        assert!(is_solution(&board, &links));
        assert!(!is_solution(&board, &links[..4]));
    }

    #[test]
    fn a_cell_on_two_links_loses() {
        let board = Board::parse(&level(&RING));
        // (1,0) is on the first link; the second runs through it again.
        let v = play(&board, &[RING_LINKS[0], &[(1, 2), (1, 1), (1, 0), (0, 0)]]);
        assert!(lost_with(&v[1], "(1,0) is already on another link"));
    }

    #[test]
    fn a_node_over_its_count_loses() {
        let board = Board::parse(&level(&RING));
        // (1,2) is a 2: the third link ending there is one too many.
        let v = play(
            &board,
            &[RING_LINKS[2], RING_LINKS[3], &[(1, 2), (1, 3), (0, 3)]],
        );
        assert_eq!(v[1], Verdict::Open);
        assert!(lost_with(&v[2], "(1,2) would get more than its 2 links"));
    }

    #[test]
    fn a_split_network_loses_even_with_every_cell_and_count_right() {
        let board = Board::parse(&level(&SPLIT));
        // Top and bottom cornered, left and right bridged: see SPLIT.
        let v = play(
            &board,
            &[
                &[(0, 0), (1, 0), (1, 1)],
                &[(3, 0), (2, 0), (2, 1)],
                &[(0, 3), (1, 3), (1, 2)],
                &[(3, 3), (2, 3), (2, 2)],
                &[(1, 1), (0, 1), (0, 2), (1, 2)],
                &[(2, 1), (3, 1), (3, 2), (2, 2)],
            ],
        );
        assert!(v[..5].iter().all(|v| *v == Verdict::Open));
        assert!(lost_with(&v[5], "do not join all nodes"));
    }

    #[test]
    fn covering_every_cell_with_a_count_unmet_loses() {
        let board = Board::parse(&level(&SPLIT));
        // Both bridges on every side: the eight cells are covered, the corners have none.
        let v = play(
            &board,
            &[
                &[(1, 1), (1, 0), (2, 0), (2, 1)],
                &[(1, 1), (0, 1), (0, 2), (1, 2)],
                &[(2, 1), (3, 1), (3, 2), (2, 2)],
                &[(1, 2), (1, 3), (2, 3), (2, 2)],
            ],
        );
        assert!(lost_with(&v[3], "has 0 of its 1 links"));
    }

    #[test]
    fn every_count_met_with_a_cell_uncovered_loses() {
        let board = Board::parse(&level(&["1.1.", "....", "....", "...."]));
        let v = play(&board, &[&[(0, 0), (1, 0), (2, 0)]]);
        assert!(lost_with(&v[0], "lies on no link"));
    }

    #[test]
    fn a_link_between_two_nodes_twice_is_allowed() {
        // The rules do not forbid two links between the same pair; each is its own link.
        // The only two nodes are 2s; the 14 cells split into two links between them.
        let board = Board::parse(&level(&["2...", "....", "....", "...2"]));
        let two = [
            cells_of(
                &board,
                &[
                    (0, 0),
                    (1, 0),
                    (2, 0),
                    (3, 0),
                    (3, 1),
                    (2, 1),
                    (1, 1),
                    (1, 2),
                    (2, 2),
                    (3, 2),
                    (3, 3),
                ],
            ),
            cells_of(
                &board,
                &[(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 3)],
            ),
        ];
        assert!(is_solution(&board, &two));
    }
}
