//! SVG preview of a tetropica level: rock, destructible tiles, S and E, the hand in a row
//! below the board, and on request the solution's pieces, numbered in play order.

use super::rules::kind_of;
use super::{Placement, TetropicaLevel};
use crate::grid;
use crate::svg::{CELL, Svg};

const ROCK: &str = "#6d2a22";
const TILE: &str = "#ead9a8";
/// Piece colours in `IOTSZJL` order (the usual Tetris colours).
const PIECE_COLOURS: [&str; 7] = [
    "#00acc1", "#f9a825", "#8e24aa", "#43a047", "#e53935", "#1e63d6", "#ef6c00",
];

pub fn render(level: &TetropicaLevel, solution: Option<&[Placement]>) -> String {
    let mut svg = Svg::new(level.width, level.height + 1, "#fbf8ef");
    for (x, y, c) in grid::cells(&level.grid) {
        match c {
            '#' => svg.cell(x, y, 0, ROCK),
            'o' => svg.cell(x, y, 3, TILE),
            'S' => svg
                .disc(x, y, CELL / 3, "#2e7d32", "#1b5e20")
                .label(x, y, "S", "#fff"),
            'E' => svg
                .disc(x, y, CELL / 3, "#37474f", "#263238")
                .label(x, y, "E", "#fff"),
            _ => &mut svg,
        };
    }
    for (order, placement) in solution.unwrap_or_default().iter().enumerate() {
        draw_piece(&mut svg, level, placement, order + 1);
    }
    let hand: Vec<String> = level.pieces.chars().map(String::from).collect();
    svg.label(level.width / 2, level.height, &hand.join(" "), "#333");
    svg.finish()
}

/// One placement: its cells in the piece's colour, joined into one block, numbered.
fn draw_piece(svg: &mut Svg, level: &TetropicaLevel, placement: &Placement, number: usize) {
    let colour = placement
        .piece
        .chars()
        .next()
        .and_then(kind_of)
        .map_or("#757575", |k| PIECE_COLOURS[k]);
    let inside = |&[x, y]: &[i64; 2]| {
        (x >= 0 && y >= 0 && (x as usize) < level.width && (y as usize) < level.height)
            .then_some((x as usize, y as usize))
    };
    let cells: Vec<(usize, usize)> = placement.cells.iter().filter_map(inside).collect();
    for (i, &a) in cells.iter().enumerate() {
        for &b in &cells[i + 1..] {
            if a.0.abs_diff(b.0) + a.1.abs_diff(b.1) == 1 {
                svg.link(a, b, colour, CELL - 10);
            }
        }
    }
    for &(x, y) in &cells {
        svg.cell(x, y, 5, colour)
            .label(x, y, &number.to_string(), "#fff");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tetropica::rules::PIECE_LETTERS;

    #[test]
    fn every_piece_has_its_own_colour() {
        assert_eq!(PIECE_COLOURS.len(), PIECE_LETTERS.len());
        let mut colours = PIECE_COLOURS.to_vec();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), 7);
        assert!(!colours.contains(&TILE) && !colours.contains(&ROCK));
    }
}
