#!/usr/bin/env bash
# Instruction counts of the solver hot paths (benches/instructions.rs, callgrind through
# gungraun) against the committed baseline, benches/instructions.baseline.json.
#
#   scripts/instructions.sh            # print the table (the same as --check)
#   scripts/instructions.sh --check    # exit 1 when a count grew more than 5 % over the baseline
#   scripts/instructions.sh --update   # rewrite the baseline from this run; commit it with the change
#
# A count is repeatable whatever else the machine runs, so the 5 % bound holds on a busy
# CI machine. A change that makes a count grow on purpose commits the new baseline in the
# same change. Needs valgrind; installs the gungraun runner matching the library's
# version into the target dir. CARGO_TARGET_DIR is honoured. LIMIT_PERCENT (5) sets the bound.
set -euo pipefail

mode=${1:---check}
case "$mode" in
--check | --update) ;;
*)
    echo "usage: $0 [--check|--update]" >&2
    exit 2
    ;;
esac
LIMIT_PERCENT=${LIMIT_PERCENT:-5}

cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target="$root/$target" ;; esac
baseline="$root/benches/instructions.baseline.json"

if ! command -v valgrind >/dev/null; then
    echo "valgrind is missing: installing it with apt-get" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get install -y -qq valgrind
fi

# The runner must be the library's exact version (Cargo.toml pins it with `=`).
version=$(sed -n 's/^gungraun = "=\(.*\)"/\1/p' Cargo.toml)
runner="$target/tools/bin/gungraun-runner"
if [ ! -x "$runner" ] || [ "$("$runner" --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
    cargo install gungraun-runner --version "=$version" --locked --root "$target/tools"
fi
export GUNGRAUN_RUNNER="$runner"

results=$(mktemp)
trap 'rm -f "$results"' EXIT
cargo bench --bench instructions -- --output-format=json --nosummary >"$results"

python3 - "$mode" "$baseline" "$results" "$LIMIT_PERCENT" <<'PY'
import json, sys

mode, baseline_path, results_path, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])

def instructions(record):
    """The Ir total of one benchmark's callgrind run, from gungraun's JSON summary."""
    for profile in record["profiles"]:
        if profile["tool"] == "Callgrind":
            return int(profile["data"]["total"]["metrics"]["Ir"]["values"]["new"])
    raise SystemExit(f"no callgrind figures for {record['id']}")

counts = {}
with open(results_path) as lines:
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            record = json.loads(line)
            counts[f"{record['function_name']}/{record['id']}"] = instructions(record)
if not counts:
    raise SystemExit("the benchmark printed no results")

if mode == "--update":
    with open(baseline_path, "w") as out:
        json.dump(dict(sorted(counts.items())), out, indent=2)
        out.write("\n")
    print(f"wrote {len(counts)} counts to {baseline_path}")
    sys.exit(0)

with open(baseline_path) as f:
    baseline = json.load(f)
failed = []
print(f"{'benchmark':<26} {'baseline':>15} {'now':>15} {'change':>8}")
for name in sorted(set(baseline) | set(counts)):
    before, now = baseline.get(name), counts.get(name)
    if before is None or now is None:
        print(f"{name:<26} {before or '-':>15} {now or '-':>15}   {'new' if before is None else 'gone'}")
        failed.append(name)
        continue
    change = (now - before) / before * 100
    flag = "  REGRESSION" if change > limit else ""
    print(f"{name:<26} {before:>15,} {now:>15,} {change:>+7.2f}%{flag}")
    if change > limit:
        failed.append(name)
if failed:
    print(f"\n{len(failed)} benchmark(s) over the baseline by more than {limit:g} % or not in it: "
          f"{', '.join(failed)}.\nIf the change is intended, run scripts/instructions.sh --update "
          "and commit benches/instructions.baseline.json with it.")
    sys.exit(1)
print(f"\nall {len(counts)} counts within {limit:g} % of the baseline")
PY
