//! The settings docs are the command line's: every environment variable of `serve` has a
//! row in docs/operations.md with clap's own default, every row names a real setting, the
//! few README repeats agree, and every subcommand has a row in the commands table. Plain
//! file reads: no server.

use std::collections::BTreeMap;

use clap::CommandFactory;
use levelforge::config::Cli;

/// Read outside clap (tracing's filter), documented beside the flags.
const OUTSIDE_CLAP: [(&str, &str); 1] = [("RUST_LOG", "info,sqlx=warn")];

fn read(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// `serve`'s settings: environment variable → clap's default (`none` without one).
fn serve_defaults() -> BTreeMap<String, String> {
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("serve subcommand");
    let mut defaults: BTreeMap<String, String> = serve
        .get_arguments()
        .filter_map(|arg| {
            let env = arg.get_env()?.to_string_lossy().into_owned();
            let values: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            let default = if values.is_empty() {
                "none".to_string()
            } else {
                values.join(",")
            };
            Some((env, default))
        })
        .collect();
    for (env, default) in OUTSIDE_CLAP {
        defaults.insert(env.to_string(), default.to_string());
    }
    defaults
}

/// The first markdown table after `heading` whose header row starts with `first_column`,
/// as rows of cells.
fn table_after(doc: &str, heading: &str, first_column: &str) -> Vec<Vec<String>> {
    let section = &doc[doc
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"))..];
    let header = format!("| {first_column} |");
    let start = section
        .find(&header)
        .unwrap_or_else(|| panic!("no table `{header}`"));
    section[start..]
        .lines()
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
            inner
                .split(" | ")
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect()
}

/// A settings row's (environment variable, documented default) pairs: `A`, `B` with `x, y`.
fn documented(row: &[String]) -> Vec<(String, String)> {
    let envs = row[0].split(", ").map(|e| e.trim_matches('`').to_string());
    let defaults: Vec<&str> = row[1].split(", ").collect();
    envs.enumerate()
        .map(|(i, env)| {
            let default = defaults.get(i).or(defaults.last()).unwrap();
            // `0 (= CPUs)` documents 0; backticks only quote.
            let value = default.split(" (").next().unwrap().trim_matches('`');
            (env, value.to_string())
        })
        .collect()
}

fn settings_table(file: &str, heading: &str) -> Vec<(String, String)> {
    table_after(&read(file), heading, "env")
        .iter()
        .flat_map(|row| documented(row))
        .collect()
}

#[test]
fn operations_documents_every_setting_with_its_default() {
    let defaults = serve_defaults();
    let rows = settings_table("docs/operations.md", "## Configuration");
    let named: Vec<&String> = rows.iter().map(|(env, _)| env).collect();
    for env in defaults.keys() {
        assert!(
            named.contains(&env),
            "docs/operations.md has no row for {env}"
        );
    }
    for (env, value) in &rows {
        let actual = defaults.get(env);
        assert!(
            actual.is_some(),
            "docs/operations.md documents {env}, which serve does not read"
        );
        assert_eq!(Some(value), actual, "docs/operations.md: default of {env}");
    }
}

#[test]
fn readme_repeats_defaults_correctly() {
    let defaults = serve_defaults();
    for (env, value) in settings_table("README.md", "## Configuration") {
        assert_eq!(
            defaults.get(&env),
            Some(&value),
            "README.md: default of {env}"
        );
    }
}

#[test]
fn every_subcommand_has_a_row() {
    let rows = table_after(&read("docs/operations.md"), "Subcommands:", "command");
    let first_words: Vec<String> = rows
        .iter()
        .map(|row| {
            row[0]
                .trim_matches('`')
                .split([' ', '`'])
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        assert!(
            first_words.iter().any(|w| w == name),
            "docs/operations.md's commands table has no row for `{name}`"
        );
    }
}
