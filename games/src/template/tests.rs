//! The template's own rules, checked on hand-made levels. Its generated levels are
//! checked against the same contract as every registered game in games/tests/catalog.rs.

use super::*;

pub(super) fn level(rows: &[&str]) -> TemplateLevel {
    TemplateLevel {
        width: rows[0].len(),
        height: rows.len(),
        grid: rows.iter().map(|r| r.to_string()).collect(),
    }
}

fn analyze(level: &TemplateLevel) -> Analysis<String, TemplateMetrics> {
    let limits = Limits::states(1000);
    Template::analyze(level, &limits).unwrap()
}

#[test]
fn par_is_the_shortest_walk_and_counts_every_shortest_one() {
    let open = level(&["#####", "#@..#", "#...#", "#..*#", "#####"]);
    let analysis = analyze(&open);
    assert_eq!(analysis.par, Some(4));
    assert_eq!(analysis.solution.as_deref(), Some("DDRR"));
    // Two downs and two rights in any order: 4! / (2! 2!).
    assert_eq!(analysis.solution_count, 6);
    assert_eq!(analysis.extra.walls, 16);

    let walled_off = level(&["#####", "#@#*#", "#####"]);
    assert_eq!(analyze(&walled_off).par, None);
}

#[test]
fn a_step_into_a_wall_counts_and_stays() {
    let corridor = level(&["#####", "#@.*#", "#####"]);
    let replay = Template::replay(&corridor, &"URRL".to_string()).unwrap();
    assert_eq!(replay.status, Status::Won);
    assert_eq!((replay.moves_used, replay.moves_ignored), (3, 1));
    assert_eq!(replay.extra.at, [3, 1]);

    let short = Template::replay(&corridor, &"R".to_string()).unwrap();
    assert_eq!(short.status, Status::Unfinished);
    assert_eq!(short.extra.at, [2, 1]);
    let bad = Template::replay(&corridor, &"RX".to_string()).unwrap_err();
    assert_eq!(bad.rule, "moves.letters");
}

#[test]
fn validation_names_the_broken_rule() {
    let two_starts = level(&["#@@*#"]);
    assert_eq!(
        Template::validate(&two_starts).unwrap_err().rule,
        "template.start"
    );
    let no_goal = level(&["#@..#"]);
    assert_eq!(
        Template::validate(&no_goal).unwrap_err().rule,
        "template.goal"
    );
    let odd_cell = level(&["#@x*#"]);
    assert_eq!(Template::validate(&odd_cell).unwrap_err().rule, "grid.cell");
    let ok = level(&["#@.*#"]);
    assert_eq!(Template::validate(&ok), Ok(()));
}

#[test]
fn the_preview_draws_the_board_and_the_solution() {
    let corridor = level(&["#####", "#@.*#", "#####"]);
    let plain = Template::preview_svg(&corridor, None);
    let solved = Template::preview_svg(&corridor, Some(&"RR".to_string()));
    assert!(plain.starts_with("<svg") && plain.ends_with("</svg>"));
    assert_eq!(plain.matches("<line").count(), 0);
    assert_eq!(solved.matches("<line").count(), 2, "one segment per move");
}

#[test]
fn hints_walk_a_shortest_path_from_wherever_the_walker_is() {
    let open = level(&["#####", "#@..#", "#...#", "#..*#", "#####"]);
    let limits = Limits::states(1000);
    let hint = |moves: &str| Template::hint(&open, &moves.to_string(), &limits).unwrap();
    assert_eq!(
        (hint("").distance, hint("").next.as_deref()),
        (Some(4), Some("D"))
    );
    // Into the wall: the walker stays, the move still counts.
    assert_eq!(hint("U").distance, Some(4));
    assert_eq!(hint("RR").next.as_deref(), Some("D"));
    assert_eq!(hint("DDRR").distance, Some(0));
    let moved = Template::position(&open, &"R".to_string())
        .unwrap()
        .unwrap();
    assert_eq!(moved.grid, ["#####", "#.@.#", "#...#", "#..*#", "#####"]);
}
