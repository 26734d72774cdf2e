#!/usr/bin/env bash
# Solver memory per explored state: peak RSS of `levelforge verify` (release build) on each
# game's heaviest level at several state caps, less the peak of a trivial verify of the
# same game (the binary, the runtime, the level parsing), divided by the states expanded.
#
#   scripts/density.sh              # caps 1,000,000 and 5,000,000
#   CAPS="250000 1000000" scripts/density.sh
#
# The levels: tests/api/reliability/*_expensive.json (fruit, hopper, skiddy give up at
# any of these caps) and scripts/density/*.json (hashi: no drawing exists, it gives up at
# the cap with its memory flat, since it searches depth first; tetropica: the heaviest
# level found, which finishes after 115,346 states). The trivial level of each game is
# its golden easy level of seed 1. Needs /usr/bin/time (GNU). GAMES picks games.
# CARGO_TARGET_DIR is honoured; BIN points at another binary (before/after comparisons).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target="$root/$target" ;; esac
bin=${BIN:-$target/release/levelforge}
[ -n "${BIN:-}" ] || cargo build --release --quiet
caps=${CAPS:-1000000 5000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

heavy() {
    case "$1" in
    fruit | hopper | skiddy) echo "tests/api/reliability/$1_expensive.json" ;;
    *) echo "scripts/density/$1.json" ;;
    esac
}

# Peak RSS in kB and states expanded (the cap when it gave up) of one verify.
measure() {
    local file=$1 cap=$2 out="$work/out" err="$work/err"
    VERIFY_MAX_STATES=$cap /usr/bin/time -v "$bin" verify "$file" >"$out" 2>"$err" || true
    local kb states
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$err")
    # A report that gave up expanded the whole budget.
    states=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(sys.argv[2] if r.get("gave_up") else r["metrics"]["states"])' "$out" "$cap")
    echo "$kb ${states:-?}"
}

printf '%-10s %10s %12s %12s %11s\n' game cap "peak RSS MB" states "bytes/state"
for game in ${GAMES:-fruit hashi tetropica hopper skiddy}; do
    file=$(heavy "$game")
    [ -f "$file" ] || { echo "$game: no level at $file" >&2; continue; }
    grep -m1 "\"difficulty\":\"easy\",\"seed\":1," "games/tests/golden/$game.jsonl" >"$work/trivial.json"
    read -r base _ < <(measure "$work/trivial.json" 1000)
    for cap in $caps; do
        read -r kb states < <(measure "$file" "$cap")
        python3 -c 'import sys
game, cap, kb, base, states = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
per = f"{(kb - base) * 1024 / int(states):.1f}" if states.isdigit() and int(states) > 0 else "?"
print(f"{game:<10} {cap:>10,} {kb / 1024:>12.1f} {states:>12} {per:>11}")' "$game" "$cap" "$kb" "$base" "$states"
    done
done
