//! SVG preview of a skiddy level: goals are coloured doors in the border, skiddies
//! coloured discs with eyes, pits black holes, crates brown boxes with a cross, ice pale
//! blue cubes with a shine.

use std::fmt::Write;

use super::SkiddyLevel;
use super::rules::{GOAL_LETTERS, SKIDDY_LETTERS};
use crate::grid;
use crate::svg::{CELL, Svg, center};

const COLOURS: [&str; 4] = ["#e53935", "#fdd835", "#1e88e5", "#43a047"];

pub fn render(level: &SkiddyLevel, solution: Option<&str>) -> String {
    let extra_row = usize::from(solution.is_some());
    let mut svg = Svg::new(level.width, level.height + extra_row, "#eceff1");
    for (x, y, c) in grid::cells(&level.grid) {
        if c == '#' {
            svg.cell(x, y, 0, "#455a64");
            continue;
        }
        if let Some(colour) = GOAL_LETTERS.iter().position(|&g| g == c) {
            svg.cell(x, y, 0, "#455a64")
                .cell(x, y, 4, COLOURS[colour])
                .raw(&door(x, y));
            continue;
        }
        svg.cell(x, y, 1, "#fafafa");
        if c == 'O' {
            svg.disc(x, y, CELL * 2 / 5, "#212121", "#616161");
        } else if let Some(colour) = SKIDDY_LETTERS.iter().position(|&s| s == c) {
            svg.disc(x, y, CELL * 2 / 5, COLOURS[colour], "#263238")
                .raw(&eyes(x, y));
        } else if c == 'c' {
            svg.cell(x, y, 5, "#8d6e63").raw(&crate_cross(x, y));
        } else if c == 'i' {
            svg.cell(x, y, 6, "#b3e5fc").raw(&ice_shine(x, y));
        }
    }
    if let Some(moves) = solution {
        svg.label(level.width / 2, level.height, moves, "#263238");
    }
    svg.finish()
}

/// A white arch: the goal is a way out.
fn door(x: usize, y: usize) -> String {
    let (cx, cy) = center(x, y);
    let (l, r, top, bottom) = (cx - 7, cx + 7, cy - 6, cy + 11);
    format!(
        r##"<path d="M{l},{bottom} L{l},{top} A7,7 0 0 1 {r},{top} L{r},{bottom}" fill="none" stroke="#fff" stroke-width="3"/>"##
    )
}

fn eyes(x: usize, y: usize) -> String {
    let (cx, cy) = center(x, y);
    let mut out = String::new();
    for dx in [-6i32, 6] {
        let ex = cx as i32 + dx;
        let _ = write!(
            out,
            r##"<circle cx="{ex}" cy="{ey}" r="4" fill="#fff"/><circle cx="{ex}" cy="{ey}" r="2" fill="#111"/>"##,
            ey = cy - 3
        );
    }
    out
}

fn crate_cross(x: usize, y: usize) -> String {
    let (x0, y0) = (x as u32 * CELL + 8, y as u32 * CELL + 8);
    let (x1, y1) = (x0 + CELL - 16, y0 + CELL - 16);
    format!(
        r##"<path d="M{x0},{y0} L{x1},{y1} M{x1},{y0} L{x0},{y1}" stroke="#4e342e" stroke-width="3"/>"##
    )
}

fn ice_shine(x: usize, y: usize) -> String {
    let (x0, y0) = (x as u32 * CELL + 11, y as u32 * CELL + 20);
    format!(
        r##"<path d="M{x0},{y0} L{x1},{y1}" stroke="#fff" stroke-width="3" stroke-linecap="round"/>"##,
        x1 = x0 + 9,
        y1 = y0 - 9
    )
}
