#!/usr/bin/env bash
# Instructions per warm level request, counted by callgrind over the whole server process:
# the binary serves a fresh SQLite file, one level is fetched once (cold, not counted),
# the counters are zeroed, then REQUESTS keep-alive GETs of that level are counted.
# Unlike wall-clock time the count does not move with the machine's load, so two builds
# compare exactly (docs/benchmarks.md).
#
#   scripts/warm-instructions.sh BINARY [BINARY ...]    # one line per binary
#
# REQUESTS (default 5000). Needs valgrind (callgrind_control) and python3.
set -euo pipefail
requests=${REQUESTS:-5000}
[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY ...]" >&2; exit 2; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for binary in "$@"; do
  work=$(mktemp -d)
  port=$(free_port)
  admin=$(free_port)
  (cd "$work" && exec env BIND=127.0.0.1:$port ADMIN_BIND=127.0.0.1:$admin \
    DATABASE_URL="sqlite://$work/db" FIRST_RUN_KEY=never RUST_LOG=error \
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" serve >"$work/log" 2>&1) &
  server=$!
  python3 - "$port" "$requests" "$server" <<'PY'
import http.client, subprocess, sys, time
port, requests, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for _ in range(600):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/levels/easy/1")
        assert conn.getresponse().read()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("the server did not start")
# By pid: other callgrind runs on the machine keep their counts.
subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
for _ in range(requests):
    conn.request("GET", "/levels/easy/1", headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    response.read()
    assert response.status == 200
subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
PY
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  # The dump after zeroing is the highest-numbered part file.
  part=$(ls "$work"/out.* | sort -t. -k2 -n | tail -n1)
  total=$(sed -n 's/^summary: //p; s/^totals: //p' "$part" | head -n1 | awk '{print $1}')
  printf '%s: %d instructions per warm request (%s requests, %s in all)\n' \
    "$binary" "$((total / requests))" "$requests" "$total"
  rm -rf "$work"
done
