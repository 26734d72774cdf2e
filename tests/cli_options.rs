//! Options of the subcommands: `verify` reads a level that names no game as
//! DEFAULT_GAME's; `bench --difficulty` and `--survey`.

use std::process::{Command, Output};

fn levelforge(args: &[&str], default_game: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_levelforge"))
        .args(args)
        .env("DEFAULT_GAME", default_game)
        .output()
        .unwrap()
}

#[test]
fn verify_reads_an_unnamed_level_as_the_default_game() {
    let generated = levelforge(
        &["generate", "--difficulty", "easy", "--seed", "5"],
        "skiddy",
    );
    assert!(generated.status.success(), "{generated:?}");
    let mut level: serde_json::Value = serde_json::from_slice(&generated.stdout).unwrap();
    assert_eq!(level["game"], "skiddy");
    level.as_object_mut().unwrap().remove("game");
    let file = std::env::temp_dir().join(format!(
        "levelforge-verify-default-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, level.to_string()).unwrap();
    let path = file.to_str().unwrap();

    let as_skiddy = levelforge(&["verify", path], "skiddy");
    let as_fruit = levelforge(&["verify", path], "fruit");
    std::fs::remove_file(&file).ok();

    assert!(as_skiddy.status.success(), "{as_skiddy:?}");
    let report: serde_json::Value = serde_json::from_slice(&as_skiddy.stdout).unwrap();
    assert_eq!(report["par"], level["par"]);
    assert!(
        !as_fruit.status.success(),
        "a skiddy level is no fruit level"
    );
    assert!(String::from_utf8_lossy(&as_fruit.stderr).contains("invalid level"));
}

#[test]
fn bench_survey_describes_the_levels_of_one_tier() {
    let output = levelforge(
        &[
            "bench",
            "--game",
            "hopper",
            "--difficulty",
            "medium",
            "--seeds",
            "3",
            "--survey",
        ],
        "fruit",
    );
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let starts = |game: &str, tier: &str| {
        text.lines()
            .filter(|l| l.split_whitespace().take(2).eq([game, tier]))
            .count()
    };
    // One generation row and one survey row, for hopper medium only.
    assert_eq!(starts("hopper", "medium"), 2, "{text}");
    assert_eq!(starts("hopper", "easy"), 0, "{text}");
    assert_eq!(starts("fruit", "medium"), 0, "{text}");
    let survey = text
        .split("survey of the generated levels")
        .nth(1)
        .expect("survey table");
    let row = survey
        .lines()
        .find(|l| l.starts_with("hopper"))
        .expect("survey row");
    assert!(row.contains(" par ") && row.contains("states "), "{row}");
    for metric in ["stars", "arrows", "dirt", "grass"] {
        assert!(row.contains(&format!("{metric} ")), "{metric}: {row}");
    }
}

#[test]
fn bench_rejects_an_unknown_tier() {
    let output = levelforge(&["bench", "--quick", "--difficulty", "insane"], "fruit");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown difficulty"));
}
