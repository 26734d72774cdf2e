//! The binary's subcommands, run as a user would.

use std::process::Command;

fn levelforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_levelforge"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn generate_prints_the_level_and_verify_agrees() {
    let output = levelforge(&[
        "generate",
        "--game",
        "fruit",
        "--difficulty",
        "medium",
        "--seed",
        "11",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let level: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (level["game"].as_str(), level["seed"].as_u64()),
        (Some("fruit"), Some(11))
    );

    let file = std::env::temp_dir().join(format!("levelforge-cli-{}.json", std::process::id()));
    std::fs::write(&file, &output.stdout).unwrap();
    let output = levelforge(&["verify", file.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["par"], level["par"]);
    assert_eq!(report["solution"], level["solution"]);
    std::fs::remove_file(file).ok();
}

#[test]
fn verify_names_the_broken_rule_and_fails() {
    let file = std::env::temp_dir().join(format!("levelforge-cli-bad-{}.json", std::process::id()));
    std::fs::write(
        &file,
        r######"{"game":"fruit","width":5,"height":3,"grid":["#####","#aa.#","#####"]}"######,
    )
    .unwrap();
    let output = levelforge(&["verify", file.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("fruit.start_match"));
    std::fs::remove_file(file).ok();
}

#[test]
fn pregen_fills_the_store() {
    let db = std::env::temp_dir().join(format!("levelforge-pregen-{}.db", std::process::id()));
    let url = format!("sqlite://{}", db.display());
    let output = levelforge(&[
        "pregen",
        "--game",
        "fruit",
        "--difficulty",
        "easy",
        "--seeds",
        "1..20",
        "--database-url",
        &url,
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bad = levelforge(&[
        "pregen",
        "--game",
        "fruit",
        "--difficulty",
        "easy",
        "--seeds",
        "9..1",
        "--database-url",
        &url,
    ]);
    assert!(!bad.status.success());
    let _ = std::fs::remove_file(&db);
}

#[test]
fn unknown_game_or_difficulty_is_a_clear_error() {
    let output = levelforge(&[
        "generate",
        "--game",
        "chess",
        "--difficulty",
        "easy",
        "--seed",
        "1",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown game `chess`"));
    let output = levelforge(&["generate", "--difficulty", "insane", "--seed", "1"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown difficulty"));
}
