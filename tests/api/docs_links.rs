//! The repository stands on its own: every relative Markdown link resolves (anchors
//! included), every `docs/…` or `games/src/<game>/README.md` path named in a file exists,
//! and no file points at the design notes the project started from, which do not ship.
//! Plain file reads: no network, no server.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Names of the starting notes, split so that this file does not match itself.
const OUTSIDE_FILES: [&str; 4] = [
    concat!("shared", "/spec"),
    concat!("shared", "/seeds"),
    concat!("rules", ".md"),
    concat!("api", ".md"),
];

const SKIPPED_DIRS: [&str; 3] = ["target", "node_modules", ".git"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files, relative to its root: `git ls-files` where git knows the tree
/// (so local build output never counts), else a walk that skips build and VCS folders.
fn repo_files() -> Vec<PathBuf> {
    let root = root();
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|out| out.status.success() && !out.stdout.is_empty());
    let files: Vec<PathBuf> = match listed {
        Some(out) => out
            .stdout
            .split(|&b| b == 0)
            .filter(|name| !name.is_empty())
            .map(|name| PathBuf::from(String::from_utf8_lossy(name).into_owned()))
            .collect(),
        None => {
            let mut found = Vec::new();
            walk(&root, &root, &mut found);
            found
        }
    };
    // A file deleted in the work tree but not yet in the index is not part of it.
    files
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect()
}

fn walk(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                walk(root, &path, found);
            }
        } else if let Ok(relative) = path.strip_prefix(root) {
            found.push(relative.to_path_buf());
        }
    }
}

fn text_of(file: &Path) -> Option<String> {
    fs::read(root().join(file))
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
}

fn is_markdown(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "md")
}

/// Markdown without fenced code blocks and inline code spans, whose brackets are not links.
fn without_code(markdown: &str) -> String {
    let mut prose = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            prose.push('\n');
            continue;
        }
        if !fenced {
            let mut in_code = false;
            for c in line.chars() {
                if c == '`' {
                    in_code = !in_code;
                } else if !in_code {
                    prose.push(c);
                }
            }
        }
        prose.push('\n');
    }
    prose
}

/// Targets of inline links and images, `[text](target "title")`, and of reference
/// definitions, `[label]: target`.
fn link_targets(markdown: &str) -> Vec<String> {
    let prose = without_code(markdown);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        if let Some(target) = rest[..end].split_whitespace().next() {
            targets.push(target.trim_matches(['<', '>']).to_string());
        }
    }
    for line in prose.lines() {
        let line = line.trim_start();
        if let Some(after) = line.strip_prefix('[')
            && let Some((_, definition)) = after.split_once("]:")
            && let Some(target) = definition.split_whitespace().next()
        {
            targets.push(target.to_string());
        }
    }
    targets
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.insert(anchor_of(
                line.trim_start_matches('#').replace('`', "").as_str(),
            ));
        }
    }
    found
}

/// Normalises `a/b/../c` without touching the file system, so that a link through a
/// missing folder is reported rather than resolved by the OS.
fn normalise(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str()),
        }
    }
    parts.iter().collect()
}

/// Why a relative link from `file` is broken, if it is.
fn broken_link(file: &Path, target: &str) -> Option<String> {
    let (path_part, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let path_part = path_part.split('?').next().unwrap_or("");
    let linked = if path_part.is_empty() {
        file.to_path_buf()
    } else if let Some(from_root) = path_part.strip_prefix('/') {
        PathBuf::from(from_root)
    } else {
        normalise(&file.parent().unwrap_or(Path::new("")).join(path_part))
    };
    let full = root().join(&linked);
    if !full.exists() {
        return Some(format!("{} does not exist", linked.display()));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if !is_markdown(&linked) {
        return None;
    }
    let text = text_of(&linked)?;
    (!anchors(&text).contains(anchor))
        .then(|| format!("{} has no heading for #{anchor}", linked.display()))
}

#[test]
fn every_relative_markdown_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in repo_files().iter().filter(|f| is_markdown(f)) {
        let Some(text) = text_of(file) else { continue };
        for target in link_targets(&text) {
            if is_external(&target) {
                continue;
            }
            checked += 1;
            if let Some(why) = broken_link(file, &target) {
                broken.push(format!("{}: ({target}) {why}", file.display()));
            }
        }
    }
    assert!(
        checked > 0,
        "no relative links found: the scan itself is broken"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')
}

/// Repository paths a text names: tokens starting `docs/`, and `games/src/<game>/README.md`
/// tokens, each starting where a path can start (not inside a longer path).
fn named_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for prefix in ["docs/", "games/src/"] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(is_path_char) {
                continue;
            }
            let token: String = text[at..]
                .chars()
                .take_while(|&c| is_path_char(c))
                .collect();
            let token = token.trim_end_matches(['.', '-']).to_string();
            let wanted = prefix == "docs/" || token.ends_with("/README.md");
            if wanted && token.len() > prefix.len() {
                paths.push(token);
            }
        }
    }
    paths
}

#[test]
fn every_docs_path_named_in_a_file_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in repo_files() {
        let Some(text) = text_of(&file) else { continue };
        for path in named_paths(&text) {
            checked += 1;
            if !root().join(&path).exists() {
                missing.push(format!(
                    "{}: names {path}, which does not exist",
                    file.display()
                ));
            }
        }
    }
    assert!(
        checked > 0,
        "no docs paths found: the scan itself is broken"
    );
    assert!(
        missing.is_empty(),
        "dangling paths:\n{}",
        missing.join("\n")
    );
}

#[test]
fn nothing_points_at_files_outside_the_repository() {
    let mut hits = Vec::new();
    for file in repo_files() {
        let Ok(bytes) = fs::read(root().join(&file)) else {
            continue;
        };
        for name in OUTSIDE_FILES {
            if bytes.windows(name.len()).any(|w| w == name.as_bytes()) {
                hits.push(format!("{} mentions {name}", file.display()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "the repository must stand alone:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scanners_find_what_they_should() {
    // Built at run time so that this file names no missing path itself.
    let docs = "docs";
    let markdown = format!(
        "See [a]({docs}/x.md#part), ![img](y.png), `[not](code)` and\n\
         [ref]: ../z.md\n```\n[also not](fenced)\n```\n"
    );
    assert_eq!(
        link_targets(&markdown),
        [
            format!("{docs}/x.md#part"),
            "y.png".into(),
            "../z.md".into()
        ]
    );
    assert_eq!(
        anchor_of("Determinism: the same level forever"),
        "determinism-the-same-level-forever"
    );
    let comment = format!(
        "// see {docs}/http.md. and games/src/fruit/README.md, not ../{docs}/a.md \
         or games/src/<game>/README.md or my{docs}/b.md"
    );
    assert_eq!(
        named_paths(&comment),
        [
            format!("{docs}/http.md"),
            "games/src/fruit/README.md".into()
        ]
    );
    assert!(broken_link(Path::new("README.md"), &format!("{docs}/none.md")).is_some());
    assert!(broken_link(Path::new("README.md"), &format!("{docs}/http.md#errors")).is_none());
    assert!(broken_link(Path::new("README.md"), &format!("{docs}/http.md#no-such")).is_some());
    assert!(broken_link(Path::new("README.md"), "Cargo.toml").is_none());
}
