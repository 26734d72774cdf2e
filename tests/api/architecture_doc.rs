//! docs/architecture.md's module table is the tree: each folder it has a row for names
//! exactly the modules in that folder, and every folder of Rust modules has a row. Plain
//! file reads: no server.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Folders whose modules the table must list: the crates' source roots and every folder
/// of modules below them, except one folder per game (docs/games.md covers those) and
/// the games' template.
const ROOTS: [&str; 6] = [
    "src",
    "games/src",
    "store/core/src",
    "store/common/mounted",
    "store/postgres/src",
    "store/sqlite/src",
];
/// Roots and test modules, which are not modules a reader looks for.
const NOT_MODULES: [&str; 4] = ["lib.rs", "main.rs", "mod.rs", "tests.rs"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A folder's modules: `name.rs` files and `name/` folders of modules.
fn modules(dir: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if holds_rust(&path) {
                names.insert(format!("{name}/"));
            }
        } else if name.ends_with(".rs") && !NOT_MODULES.contains(&&*name) {
            names.insert(name);
        }
    }
    names
}

fn holds_rust(dir: &Path) -> bool {
    !modules(dir).is_empty()
}

fn is_game_folder(dir: &str) -> bool {
    let game_root = Path::new(&root()).join(dir).join("rules.rs");
    dir.starts_with("games/src/") && (game_root.exists() || dir.ends_with("/template"))
}

/// Every folder of modules the table must have a row for.
fn folders() -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<String> = ROOTS.iter().map(|s| s.to_string()).collect();
    while let Some(dir) = stack.pop() {
        if is_game_folder(&dir) {
            continue;
        }
        for name in modules(&root().join(&dir)) {
            if let Some(sub) = name.strip_suffix('/') {
                stack.push(format!("{dir}/{sub}"));
            }
        }
        if holds_rust(&root().join(&dir)) {
            out.push(dir);
        }
    }
    out.sort();
    out
}

/// The table's rows: folder (first cell, `` `src/http/` ``) → the backticked module
/// names in the rest of the row.
fn rows(doc: &str) -> Vec<(String, BTreeSet<String>)> {
    doc.lines()
        .filter(|line| line.starts_with("| `"))
        .filter_map(|line| {
            let mut cells = line.trim_matches('|').split(" | ");
            let folder = cells.next()?.trim().trim_matches('`').trim_end_matches('/');
            let rest: String = cells.collect::<Vec<_>>().join(" ");
            let names = rest
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|n| n.ends_with(".rs") || n.ends_with('/'))
                .map(str::to_string)
                .collect();
            Some((folder.to_string(), names))
        })
        .collect()
}

#[test]
fn the_module_table_is_the_tree() {
    let doc = fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let rows = rows(&doc);
    for folder in folders() {
        let listed = rows
            .iter()
            .find(|(f, _)| *f == folder)
            .unwrap_or_else(|| panic!("docs/architecture.md has no row for `{folder}/`"));
        let actual = modules(&root().join(&folder));
        assert_eq!(
            listed.1, actual,
            "docs/architecture.md's row for `{folder}/`"
        );
    }
}
