#!/usr/bin/env bash
# Side by side: the designer routes of two builds over one filled database, alternated.
#
#   scripts/compare-stats.sh OLD_BINARY NEW_BINARY DATABASE_URL [PAIRS] [REQUESTS]
#
# Fill the database first (`levelforge bench stats`, docs/stats.md). For each of PAIRS
# (3) pairs it serves the database with each binary in turn on free local ports, makes a
# designer key with that binary, and times REQUESTS (100) sequential GETs per route after
# 3 warm-up ones: p50, p95 and max of the wall clock, and the server process's own CPU
# time per request (utime + stime from /proc, in clock ticks: steadier than the wall clock
# on a shared machine, and blind to the database's CPU). The write path compares with
# `levelforge bench stats --reuse --writes-only` run by each binary.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,4p "$0" >&2; exit 2; }
old=$1 new=$2 db=$3 pairs=${4:-3} requests=${5:-100}

# free_port: a port below the kernel's ephemeral range.
source "$(dirname "$0")/lib/setup.sh"

time_routes() { # port, server pid; the key in $KEY
  python3 - "$1" "$2" "$requests" <<'PY'
import http.client, math, os, sys, time
port, pid, runs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
routes = ["/stats", "/stats?difficulty=hard", "/stats?format=csv",
          "/levels?game=fruit&difficulty=hard&par_min=9&limit=50"]
def cpu_ticks():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", path, headers={"Authorization": "Bearer " + os.environ["KEY"]})
    answer = c.getresponse(); answer.read(); c.close()
    if answer.status != 200:
        sys.exit(f"{path}: HTTP {answer.status}")
for path in routes:
    for _ in range(3):
        get(path)
    times, ticks = [], cpu_ticks()
    for _ in range(runs):
        started = time.perf_counter(); get(path)
        times.append((time.perf_counter() - started) * 1000)
    cpu_ms = (cpu_ticks() - ticks) * 1000 / os.sysconf("SC_CLK_TCK") / runs
    times.sort()
    rank = lambda q: times[max(0, math.ceil(len(times) * q) - 1)]  # nearest rank
    print(f"{path:<54} p50 {rank(0.5):6.1f}  p95 {rank(0.95):6.1f}  max {times[-1]:6.1f}"
          f"  server CPU {cpu_ms:5.2f} ms/request")
PY
}

one_run() { # binary
  local port admin pid
  port=$(free_port) admin=$(free_port)
  KEY=$("$1" keys create --database-url "$db" --role designer --name "compare-$(date +%s%N)" \
    --expires-days 1 | tail -n 1)
  export KEY
  FIRST_RUN_KEY=never RUST_LOG=warn BIND="127.0.0.1:$port" ADMIN_BIND="127.0.0.1:$admin" \
    DATABASE_URL="$db" "$1" serve >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$admin/readyz" >/dev/null && break
    sleep 0.2
  done
  echo "$1, load $(cut -d' ' -f1-3 /proc/loadavg)"
  time_routes "$port" "$pid" || true
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

for _ in $(seq 1 "$pairs"); do
  one_run "$old"
  one_run "$new"
done
