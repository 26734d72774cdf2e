//! SVG preview of a Hashi Flow level: numbered nodes, and on request the solution's links,
//! one colour per link.

use super::{HashiLevel, HashiSolution};
use crate::grid;
use crate::svg::{CELL, Svg};

const LINK_COLOURS: [&str; 8] = [
    "#e53935", "#1e88e5", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#d81b60", "#6d4c41",
];

pub fn render(level: &HashiLevel, solution: Option<&HashiSolution>) -> String {
    let mut svg = Svg::new(level.width, level.height, "#f7f4ec");
    for (x, y, c) in grid::cells(&level.grid) {
        if c == '.' {
            svg.cell(x, y, 3, "#e6e0d0");
        }
    }
    if let Some(links) = solution {
        for (i, link) in links.iter().enumerate() {
            let colour = LINK_COLOURS[i % LINK_COLOURS.len()];
            // A solution from a client may point anywhere: draw only steps on the board.
            let on_board = |&[x, y]: &[usize; 2]| x < level.width && y < level.height;
            for pair in link.windows(2).filter(|p| p.iter().all(on_board)) {
                let ([ax, ay], [bx, by]) = (pair[0], pair[1]);
                svg.link((ax, ay), (bx, by), colour, CELL / 4);
            }
        }
    }
    for (x, y, c) in grid::cells(&level.grid) {
        if c != '.' {
            svg.disc(x, y, CELL * 2 / 5, "#fffdf7", "#37474f").label(
                x,
                y,
                &c.to_string(),
                "#263238",
            );
        }
    }
    svg.finish()
}
