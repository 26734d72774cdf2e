#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time and keeps what crashed.
#
#   scripts/fuzz.sh [seconds-per-target]        (default 60)
#
# Seeds the corpora with generated levels of every registered game (and a dictionary of
# their JSON keys), runs each target for the given seconds, and copies every crash,
# timeout or out-of-memory input into games/tests/fuzz_corpus/<target>/, where
# `cargo test -p levelforge-games --test fuzz_regressions` replays it. Exit status 1 when
# a target found something new.
#
# Environment: FUZZ_JOBS (parallel fuzzing processes per target, default 1),
# FUZZ_SANITIZER (default `none`: the games are safe Rust, and without AddressSanitizer
# the fuzzer runs about twice as fast; `address` to use it).
set -euo pipefail

seconds=${1:-60}
jobs=${FUZZ_JOBS:-1}
sanitizer=${FUZZ_SANITIZER:-none}
root=$(cd "$(dirname "$0")/.." && pwd)

# cargo-fuzz passes nightly-only rustc flags; this lets the stable toolchain take them.
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

cd "$root"
cargo run --quiet -p levelforge-games --example fuzz_seeds -- fuzz

cd "$root/fuzz"
# Instrumented builds share nothing with ordinary ones: keep them in fuzz/target.
flags=(-O --debug-assertions --sanitizer "$sanitizer" --target-dir "$root/fuzz/target")
cargo fuzz build "${flags[@]}"

found=0
for target in $(cargo fuzz list); do
    mkdir -p "corpus/$target" "artifacts/$target" "$root/games/tests/fuzz_corpus/$target"
    echo "== $target: ${seconds}s, $jobs job(s)"
    # Fork mode goes on after a crash, so one run can report several.
    cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -fork="$jobs" \
        -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -dict=corpus/level_json.dict -print_final_stats=1 ||
        echo "== $target: the fuzzer exited with status $?"
    for artifact in "artifacts/$target"/*; do
        [ -f "$artifact" ] || continue
        kept="$root/games/tests/fuzz_corpus/$target/$(basename "$artifact")"
        if [ ! -e "$kept" ]; then
            cp "$artifact" "$kept"
            echo "== $target: new finding $kept"
            found=1
        fi
    done
done

if [ "$found" = 1 ]; then
    echo "New findings were copied to games/tests/fuzz_corpus/: fix them, then run"
    echo "cargo test -p levelforge-games --test fuzz_regressions"
    exit 1
fi
echo "No new findings."
