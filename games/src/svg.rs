//! A tiny SVG writer for level previews: cells are `CELL` user units square.
//!
//! The geometry every preview shares, which an editor relies on to map a click to a
//! cell: no margin, the board's cell (x, y) covers user units `x*CELL..(x+1)*CELL`
//! across and `y*CELL..(y+1)*CELL` down from the `viewBox` origin, so a click at (u, v)
//! is on cell (u / CELL, v / CELL). Some games add rows below the board (a legend, the
//! pieces of the hand); those rows lie past `height` and are not cells.

use std::fmt::Write;

pub const CELL: u32 = 40;

pub struct Svg {
    out: String,
}

impl Svg {
    /// A picture of a `width` x `height` board with a background colour.
    pub fn new(width: usize, height: usize, background: &str) -> Svg {
        let (w, h) = (units(width), units(height));
        let mut out = String::with_capacity(4096);
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}"><rect width="{w}" height="{h}" fill="{background}"/>"#
        );
        Svg { out }
    }

    /// Fills cell (x, y), inset by `inset` units on every side.
    pub fn cell(&mut self, x: usize, y: usize, inset: u32, fill: &str) -> &mut Self {
        let (px, py) = (
            units(x).saturating_add(inset),
            units(y).saturating_add(inset),
        );
        let size = CELL - 2 * inset;
        let _ = write!(
            self.out,
            r#"<rect x="{px}" y="{py}" width="{size}" height="{size}" rx="{r}" fill="{fill}"/>"#,
            r = inset
        );
        self
    }

    /// A disc in the middle of cell (x, y).
    pub fn disc(&mut self, x: usize, y: usize, radius: u32, fill: &str, stroke: &str) -> &mut Self {
        let (cx, cy) = center(x, y);
        let _ = write!(
            self.out,
            r#"<circle cx="{cx}" cy="{cy}" r="{radius}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>"#
        );
        self
    }

    /// Centered text in cell (x, y).
    pub fn label(&mut self, x: usize, y: usize, text: &str, fill: &str) -> &mut Self {
        let (cx, cy) = center(x, y);
        let _ = write!(
            self.out,
            r#"<text x="{cx}" y="{cy}" font-family="sans-serif" font-size="{size}" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="{fill}">{text}</text>"#,
            size = CELL / 2,
            text = escape(text)
        );
        self
    }

    /// A line between the centers of two cells.
    pub fn link(
        &mut self,
        from: (usize, usize),
        to: (usize, usize),
        stroke: &str,
        width: u32,
    ) -> &mut Self {
        let (x1, y1) = center(from.0, from.1);
        let (x2, y2) = center(to.0, to.1);
        let _ = write!(
            self.out,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{width}" stroke-linecap="round"/>"#
        );
        self
    }

    /// A raw SVG fragment in board units.
    pub fn raw(&mut self, fragment: &str) -> &mut Self {
        self.out.push_str(fragment);
        self
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// The center of cell (x, y) in user units.
pub fn center(x: usize, y: usize) -> (u32, u32) {
    (
        units(x).saturating_add(CELL / 2),
        units(y).saturating_add(CELL / 2),
    )
}

/// `cells` cells in user units. Saturating: a coordinate a game failed to check draws off
/// the picture instead of overflowing.
pub fn units(cells: usize) -> u32 {
    u32::try_from(cells).map_or(u32::MAX, |c| c.saturating_mul(CELL))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
