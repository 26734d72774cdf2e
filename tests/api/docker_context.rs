//! The container build: the context .dockerignore lets through stays small and holds what
//! the build reads, cargo-chef is pinned, and the image's Rust is the one CI runs.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).unwrap()
}

/// .dockerignore as a gitignore-style matcher. Docker and gitignore disagree on bare
/// patterns (Docker anchors them at the root, git matches them at any depth), so every
/// pattern must be anchored (`/x`) or explicitly at any depth (`**/x`), where they agree.
fn docker_ignore() -> Gitignore {
    let mut builder = GitignoreBuilder::new(root());
    for line in read(".dockerignore").lines() {
        let pattern = line.trim();
        if pattern.is_empty() || pattern.starts_with('#') {
            continue;
        }
        let body = pattern.strip_prefix('!').unwrap_or(pattern);
        assert!(
            body.starts_with('/') || body.starts_with("**/"),
            "`{pattern}`: anchor it (`/x`) or write `**/x`, so Docker and this test agree"
        );
        builder.add_line(None, pattern).unwrap();
    }
    builder.build().unwrap()
}

/// Every file of the tree the context keeps (Docker drops a path whose folder matches).
fn context() -> Vec<(PathBuf, u64)> {
    fn walk(dir: &Path, ignore: &Gitignore, out: &mut Vec<(PathBuf, u64)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let is_dir = entry.file_type().unwrap().is_dir();
            if ignore.matched(&path, is_dir).is_ignore() {
                continue; // nothing under an excluded folder is re-included by our patterns
            }
            if is_dir {
                walk(&path, ignore, out);
            } else {
                let relative = path.strip_prefix(root()).unwrap().to_path_buf();
                out.push((relative, entry.metadata().unwrap().len()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root(), &docker_ignore(), &mut out);
    out
}

#[test]
fn the_build_context_is_small_and_has_what_the_build_reads() {
    let files = context();
    let has = |name: &str| files.iter().any(|(p, _)| p == Path::new(name));
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "src/lib.rs",
        "src/http/dashboard/index.html",
        "src/http/dashboard/app.js",
        "src/http/dashboard/style.css",
        "games/Cargo.toml",
        "games/src/lib.rs",
        "store/core/Cargo.toml",
        "store/common/Cargo.toml",
        "store/postgres/sqlx.toml",
        "store/sqlite/sqlx.toml",
        "benches/solvers.rs",
    ] {
        assert!(
            has(needed),
            "the build reads {needed}, which the context leaves out"
        );
    }
    // Every source file of every crate, with each backend's migrations (embedded by
    // sqlx::migrate!) and query metadata (read by the offline build).
    for dir in [
        "src",
        "games/src",
        "store/core/src",
        "store/common",
        "store/postgres",
        "store/sqlite",
    ] {
        let mut stack = vec![root().join(dir)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path.strip_prefix(root()).unwrap();
                    assert!(has(relative.to_str().unwrap()), "{}", relative.display());
                }
            }
        }
    }
    for (path, _) in &files {
        let text = path.to_string_lossy();
        for junk in [
            "target/",
            ".git/",
            "node_modules/",
            "fuzz/",
            "fuzz_corpus/",
            "tests/",
            ".db",
        ] {
            assert!(
                !text.starts_with(junk) && !text.contains(&format!("/{junk}")),
                "{text} is in the context"
            );
        }
    }
    let bytes: u64 = files.iter().map(|(_, size)| size).sum();
    // Each store query is two small files (its SQL and its metadata), per backend.
    assert!(
        bytes < 4 * 1024 * 1024 && files.len() < 600,
        "the context grew to {} files, {bytes} bytes",
        files.len()
    );
}

#[test]
fn cargo_chef_is_pinned_and_the_image_rust_is_the_one_ci_runs() {
    let dockerfile = read("Dockerfile");
    let install = dockerfile
        .lines()
        .find(|l| l.contains("cargo install cargo-chef"))
        .expect("the Dockerfile installs cargo-chef");
    let version = install
        .split_once("--version ")
        .map(|(_, v)| v.split_whitespace().next().unwrap_or(""))
        .expect("cargo-chef pinned with --version");
    assert!(
        version.split('.').count() == 3 && version.split('.').all(|n| n.parse::<u32>().is_ok()),
        "an exact cargo-chef version, not `{version}`"
    );
    assert!(install.contains("--locked"), "{install}");

    let image = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("FROM rust:"))
        .expect("a rust build image");
    let image_version = image.split(['-', ' ']).next().unwrap();
    let rustc = std::process::Command::new(std::env::var("RUSTC").unwrap_or("rustc".into()))
        .arg("--version")
        .output()
        .expect("rustc runs");
    let rustc = String::from_utf8(rustc.stdout).unwrap();
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let ci_version = rustc.split_whitespace().nth(1).expect("a version");
    assert_eq!(
        image_version, ci_version,
        "the image builds with rust:{image_version}, CI with {rustc}; move the Dockerfile's FROM"
    );
}
