//! SVG preview of a fruit level.

use super::FruitLevel;
use crate::core::Dir;
use crate::grid;
use crate::svg::{CELL, Svg, center};

const FRUIT_COLOURS: [&str; 8] = [
    "#e53935", "#fdd835", "#8e24aa", "#43a047", "#fb8c00", "#1e88e5", "#d81b60", "#6d4c41",
];

pub fn render(level: &FruitLevel, solution: Option<&str>) -> String {
    let extra_row = usize::from(solution.is_some());
    let mut svg = Svg::new(level.width, level.height + extra_row, "#f4efe1");
    for (x, y, c) in grid::cells(&level.grid) {
        match c {
            '#' => svg.cell(x, y, 0, "#5d4037"),
            '~' => svg.cell(x, y, 2, "#8d6e63"),
            'H' => svg
                .disc(x, y, CELL / 3, "#795548", "#3e2723")
                .label(x, y, "H", "#fff"),
            'A' => svg
                .disc(x, y, CELL / 3, "#90a4ae", "#37474f")
                .label(x, y, "A", "#263238"),
            'o' => svg.cell(x, y, 6, "#9e9e9e"),
            c if ('a'..='h').contains(&c) => {
                let colour = FRUIT_COLOURS[(c as u8 - b'a') as usize];
                svg.disc(x, y, CELL * 2 / 5, colour, "#333")
                    .label(x, y, &c.to_string(), "#111")
            }
            _ => &mut svg,
        };
    }
    for a in &level.anteaters {
        svg.raw(&pointer(a.x, a.y, a.dir, "#263238"));
    }
    for o in &level.one_ways {
        svg.raw(&one_way_mark(o.x, o.y, o.dir));
    }
    if let Some(moves) = solution {
        svg.label(level.width / 2, level.height, moves, "#333");
    }
    svg.finish()
}

/// A small triangle at the edge of cell (x, y) pointing in `dir`.
fn pointer(x: usize, y: usize, dir: Dir, fill: &str) -> String {
    let (cx, cy) = center(x, y);
    let (dx, dy) = dir.delta();
    let tip = (cx as i32 + dx * 18, cy as i32 + dy * 18);
    let base = (cx as i32 + dx * 10, cy as i32 + dy * 10);
    let (px, py) = (-dy * 6, dx * 6);
    format!(
        r#"<polygon points="{},{} {},{} {},{}" fill="{fill}"/>"#,
        tip.0,
        tip.1,
        base.0 + px,
        base.1 + py,
        base.0 - px,
        base.1 - py
    )
}

/// A one-way: an arrow on the border between (x, y) and its neighbour in `dir`.
fn one_way_mark(x: usize, y: usize, dir: Dir) -> String {
    let (cx, cy) = center(x, y);
    let (dx, dy) = dir.delta();
    let half = CELL as i32 / 2;
    let (bx, by) = (cx as i32 + dx * half, cy as i32 + dy * half);
    let (px, py) = (-dy * 8, dx * 8);
    format!(
        r##"<polygon points="{},{} {},{} {},{}" fill="#1565c0" stroke="#fff" stroke-width="1"/>"##,
        bx + dx * 7,
        by + dy * 7,
        bx - dx * 5 + px,
        by - dy * 5 + py,
        bx - dx * 5 - px,
        by - dy * 5 - py
    )
}
