//! Helpers for the text grids every level carries.

use crate::core::RuleError;

/// Checks that `grid` is a non-empty rectangle of `width` x `height` cells within the
/// given size bounds (inclusive), and that every cell is one of `allowed`.
pub fn check_shape(
    grid: &[String],
    width: usize,
    height: usize,
    min: (usize, usize),
    max: (usize, usize),
    allowed: &str,
) -> Result<(), RuleError> {
    if grid.len() != height {
        return Err(RuleError::new(
            "grid.height",
            format!("`height` is {height} but `grid` has {} rows", grid.len()),
        ));
    }
    for (y, row) in grid.iter().enumerate() {
        let len = row.chars().count();
        if len != width {
            return Err(RuleError::new(
                "grid.width",
                format!("row {y} has {len} cells but `width` is {width}"),
            ));
        }
        if let Some((x, c)) = row.chars().enumerate().find(|(_, c)| !allowed.contains(*c)) {
            return Err(RuleError::new(
                "grid.cell",
                format!("cell ({x},{y}) is `{c}`, which is not one of `{allowed}`"),
            ));
        }
    }
    if width < min.0 || height < min.1 || width > max.0 || height > max.1 {
        return Err(RuleError::new(
            "grid.size",
            format!(
                "the board is {width}x{height}; it must be from {}x{} to {}x{}",
                min.0, min.1, max.0, max.1
            ),
        ));
    }
    Ok(())
}

/// Every cell as `(x, y, char)`, in reading order.
pub fn cells(grid: &[String]) -> impl Iterator<Item = (usize, usize, char)> + '_ {
    grid.iter()
        .enumerate()
        .flat_map(|(y, row)| row.chars().enumerate().map(move |(x, c)| (x, y, c)))
}

/// Turns a char matrix back into grid rows.
pub fn to_rows(cells: &[Vec<char>]) -> Vec<String> {
    cells.iter().map(|row| row.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shape_errors_name_the_rule() {
        let g = rows(&["###", "#.#", "###"]);
        assert!(check_shape(&g, 3, 3, (3, 3), (8, 8), "#.").is_ok());
        assert_eq!(
            check_shape(&g, 3, 4, (3, 3), (8, 8), "#.")
                .unwrap_err()
                .rule,
            "grid.height"
        );
        assert_eq!(
            check_shape(&g, 4, 3, (3, 3), (8, 8), "#.")
                .unwrap_err()
                .rule,
            "grid.width"
        );
        assert_eq!(
            check_shape(&g, 3, 3, (3, 3), (8, 8), "#").unwrap_err().rule,
            "grid.cell"
        );
        assert_eq!(
            check_shape(&g, 3, 3, (4, 4), (8, 8), "#.")
                .unwrap_err()
                .rule,
            "grid.size"
        );
    }
}
