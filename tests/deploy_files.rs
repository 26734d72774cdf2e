//! No Docker engine runs in CI, so the container files are checked against the binary's
//! real command line: every environment variable they set is one the binary reads, and
//! every subcommand they run exists.

use clap::CommandFactory;
use levelforge::config::Cli;

/// Every environment variable any subcommand reads, plus the ones read outside clap.
fn known_env() -> Vec<String> {
    fn walk(command: &clap::Command, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                out.push(env.to_string_lossy().into_owned());
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut out = vec!["RUST_LOG".to_string()];
    walk(&Cli::command(), &mut out);
    out
}

fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

#[test]
fn compose_sets_only_variables_the_binary_reads() {
    let compose = read("docker-compose.yml");
    let known = known_env();
    let mut in_levelforge_env = false;
    let mut checked = 0;
    for line in compose.lines() {
        let indent = line.len() - line.trim_start().len();
        if line.trim() == "environment:" {
            in_levelforge_env = true;
            continue;
        }
        if in_levelforge_env && indent <= 4 {
            in_levelforge_env = false;
        }
        if in_levelforge_env && let Some((key, _)) = line.trim().split_once(':') {
            if key.starts_with("POSTGRES_") {
                continue; // the postgres image's own settings
            }
            assert!(
                known.contains(&key.to_string()),
                "docker-compose.yml sets {key}, which levelforge never reads"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 8,
        "expected the service's settings in docker-compose.yml, found {checked}"
    );
}

#[test]
fn dockerfile_runs_real_subcommands_and_variables() {
    let dockerfile = read("Dockerfile");
    let subs = subcommands();
    for needed in ["healthcheck", "serve"] {
        assert!(
            subs.iter().any(|s| s == needed),
            "levelforge has no `{needed}` subcommand"
        );
        assert!(
            dockerfile.contains(&format!("\"{needed}\"")),
            "Dockerfile does not run `{needed}`"
        );
    }
    let known = known_env();
    for line in dockerfile
        .lines()
        .skip_while(|l| !l.starts_with("ENV"))
        .take_while(|l| !l.is_empty())
    {
        let assignment = line
            .trim_start_matches("ENV")
            .trim()
            .trim_end_matches('\\')
            .trim();
        if let Some((key, _)) = assignment.split_once('=') {
            assert!(
                known.contains(&key.to_string()),
                "Dockerfile sets {key}, which levelforge never reads"
            );
        }
    }
}

#[test]
fn healthcheck_defaults_to_the_serving_port() {
    use clap::Parser;
    let cli = Cli::try_parse_from(["levelforge", "healthcheck"]).unwrap();
    let Some(levelforge::config::Command::Healthcheck(args)) = cli.command else {
        panic!("healthcheck")
    };
    assert_eq!(args.bind.port(), 8080);
}
