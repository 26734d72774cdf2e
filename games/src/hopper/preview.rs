//! SVG preview of a hopper level: water, grass, dirt, arrows, stars, start and goal;
//! the solution as a red trail (slides included) with its letters underneath.

use std::fmt::Write;

use super::HopperLevel;
use super::rules::{Board, Step, Tile};
use crate::core::{Dir, parse_moves};
use crate::svg::{CELL, Svg, center};

const WATER: &str = "#4fa3d9";
const GRASS: &str = "#8bc34a";
const DIRT: &str = "#a1724e";
const ARROW_TILE: &str = "#cfd8dc";
const STONE: &str = "#9e9e9e";
/// Width of one caption letter (16-unit monospace), rounded up.
const CAPTION_ADVANCE: usize = 10;

pub fn render(level: &HopperLevel, solution: Option<&str>) -> String {
    let board = Board::compile(level);
    let lines = solution
        .map(|moves| wrap(moves, level.width))
        .unwrap_or_default();
    let extra_rows = lines.len().div_ceil(2);
    let mut svg = Svg::new(level.width, level.height + extra_rows, WATER);
    for (cell, &tile) in board.tiles.iter().enumerate() {
        let (x, y) = board.xy(cell);
        match tile {
            Tile::Water => {}
            Tile::Grass => {
                svg.cell(x, y, 1, GRASS);
            }
            Tile::Dirt => {
                svg.cell(x, y, 1, DIRT).raw(&dirt_speckles(x, y));
            }
            Tile::Arrow(d) => {
                svg.cell(x, y, 1, ARROW_TILE).raw(&arrow(x, y, d));
            }
            Tile::Goal => {
                svg.cell(x, y, 1, GRASS)
                    .disc(x, y, CELL * 2 / 5, STONE, "#424242")
                    .label(x, y, "G", "#212121");
            }
        }
    }
    for &[x, y] in &level.stars {
        svg.raw(&star(x, y));
    }
    let (sx, sy) = board.xy(board.start);
    svg.disc(sx, sy, CELL / 3, "#ffffff", "#333")
        .label(sx, sy, "S", "#333");
    if let Some(moves) = solution {
        svg.raw(&trail(&board, moves));
        svg.raw(&caption(&lines, level.width, level.height));
    }
    svg.finish()
}

/// The solution's letters in lines that fit the board's width.
fn wrap(moves: &str, width: usize) -> Vec<String> {
    let per_line = (width * CELL as usize / CAPTION_ADVANCE).max(1);
    let letters: Vec<char> = moves.chars().collect();
    letters
        .chunks(per_line)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// Caption lines, two per cell row, under the board.
fn caption(lines: &[String], width: usize, height: usize) -> String {
    let x = width as u32 * CELL / 2;
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let y = height as u32 * CELL + CELL / 4 + i as u32 * CELL / 2;
        let text: String = line.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        let _ = write!(
            out,
            r##"<text x="{x}" y="{y}" font-family="monospace" font-size="16" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#333">{text}</text>"##
        );
    }
    out
}

/// The cells the hopper passes through, slides included, as a polyline.
fn trail(board: &Board, moves: &str) -> String {
    let Ok(moves) = parse_moves(moves) else {
        return String::new();
    };
    let mut state = board.start_state();
    let mut at = board.start;
    let mut points = vec![center_of(board, at)];
    for d in moves {
        let step = board.step(state, d);
        let landed = !matches!(step, Step::Fell);
        if landed {
            points.extend(
                board
                    .trace(at, d)
                    .cells
                    .iter()
                    .map(|&c| center_of(board, c)),
            );
        }
        match step {
            Step::To(next) => {
                state = next;
                at = super::rules::unpack(next).0;
            }
            _ => break,
        }
    }
    let mut out = String::from(
        r##"<polyline fill="none" stroke="#d32f2f" stroke-width="4" stroke-linejoin="round" stroke-linecap="round" stroke-opacity="0.75" points=""##,
    );
    for (x, y) in points {
        let _ = write!(out, "{x},{y} ");
    }
    out.push_str(r#""/>"#);
    out
}

fn center_of(board: &Board, cell: usize) -> (u32, u32) {
    let (x, y) = board.xy(cell);
    center(x, y)
}

/// A bold triangle filling most of an arrow tile, pointing in `d`.
fn arrow(x: usize, y: usize, d: Dir) -> String {
    let (cx, cy) = center(x, y);
    let (cx, cy) = (cx as i32, cy as i32);
    let (dx, dy) = d.delta();
    let (tip, back, half) = (14, 10, 11);
    let (px, py) = (-dy * half, dx * half);
    format!(
        r##"<polygon points="{},{} {},{} {},{}" fill="#37474f"/>"##,
        cx + dx * tip,
        cy + dy * tip,
        cx - dx * back + px,
        cy - dy * back + py,
        cx - dx * back - px,
        cy - dy * back - py
    )
}

/// A five-pointed star in the middle of cell (x, y).
fn star(x: usize, y: usize) -> String {
    // Outer and inner radii 15 and 6.5, points from the top clockwise, precomputed.
    const POINTS: [(f32, f32); 10] = [
        (0.0, -15.0),
        (3.8, -5.3),
        (14.3, -4.6),
        (6.2, 2.0),
        (8.8, 12.1),
        (0.0, 6.5),
        (-8.8, 12.1),
        (-6.2, 2.0),
        (-14.3, -4.6),
        (-3.8, -5.3),
    ];
    let (cx, cy) = center(x, y);
    let mut out = String::from(r#"<polygon points=""#);
    for (px, py) in POINTS {
        let _ = write!(out, "{:.1},{:.1} ", cx as f32 + px, cy as f32 + py);
    }
    out.push_str(r##"" fill="#ffd600" stroke="#8d6e00" stroke-width="1.5"/>"##);
    out
}

/// Dark specks that tell dirt from grass even in grey.
fn dirt_speckles(x: usize, y: usize) -> String {
    let (cx, cy) = center(x, y);
    [(-9, -8), (7, -10), (-4, 6), (10, 8), (0, -1)]
        .iter()
        .map(|(dx, dy)| {
            format!(
                r##"<circle cx="{}" cy="{}" r="2" fill="#5d3a1a"/>"##,
                cx as i32 + dx,
                cy as i32 + dy
            )
        })
        .collect()
}
