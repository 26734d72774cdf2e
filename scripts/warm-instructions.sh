#!/usr/bin/env bash
# Instructions per warm level request, counted by callgrind over the whole server process:
# the binary serves a fresh SQLite file, one level is fetched once (cold, not counted),
# the counters are zeroed, then REQUESTS keep-alive GETs of that level are counted.
# With COLLECTION=1 a collection of that level is published first (with a designer key
# made by `keys create`), and the warm manifest and the warm collection level are
# counted the same way, each after its own first (uncounted) request.
# Unlike wall-clock time the count does not move with the machine's load, so two builds
# compare exactly (docs/benchmarks.md).
#
#   scripts/warm-instructions.sh BINARY [BINARY ...]    # one line per binary
#
# REQUESTS (default 5000). Needs valgrind (callgrind_control) and python3.
set -euo pipefail
requests=${REQUESTS:-5000}
[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY ...]" >&2; exit 2; }

# free_port: a port below the kernel's ephemeral range.
source "$(dirname "$0")/lib/setup.sh"

for binary in "$@"; do
  work=$(mktemp -d)
  port=$(free_port)
  admin=$(free_port)
  key=""
  if [ "${COLLECTION:-0}" = 1 ]; then
    key=$("$binary" keys create --role designer --name warm-instructions \
      --database-url "sqlite://$work/db" 2>/dev/null | tail -n1)
  fi
  (cd "$work" && exec env BIND=127.0.0.1:$port ADMIN_BIND=127.0.0.1:$admin \
    DATABASE_URL="sqlite://$work/db" FIRST_RUN_KEY=never RUST_LOG=error \
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" serve >"$work/log" 2>&1) &
  server=$!
  LEVELFORGE_KEY="$key" python3 - "$port" "$requests" "$server" <<'PY' >"$work/paths"
import http.client, json, os, subprocess, sys, time
port, requests, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
key = os.environ["LEVELFORGE_KEY"]
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
paths = ["/levels/easy/1"]
if key:
    body = json.dumps({"title": "warm", "game": "fruit", "entries": [{"difficulty": "easy", "seed": 1}]})
    conn.request("PUT", "/collections/warm", body=body,
                 headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    response = conn.getresponse()
    response.read()
    assert response.status == 201, response.status
    paths += ["/collections/warm/v/1", "/collections/warm/v/1/1"]
for path in paths:
    conn.request("GET", path)  # the first read fills the server's memory: not counted
    conn.getresponse().read()
    # A new connection, as wrk's: one whose requests are all warm is answered before hyper.
    conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    # By pid: other callgrind runs on the machine keep their counts.
    subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
    for _ in range(requests):
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
    print(path, flush=True)
PY
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  # One dump per path, in order, after its zeroing: the part files by number.
  i=0
  for part in $(ls "$work"/out.* | sort -t. -k2 -n); do
    i=$((i + 1))
    path=$(sed -n "${i}p" "$work/paths")
    total=$(sed -n 's/^summary: //p; s/^totals: //p' "$part" | head -n1 | awk '{print $1}')
    printf '%s: GET %s: %d instructions per warm request (%s requests, %s in all)\n' \
      "$binary" "$path" "$((total / requests))" "$requests" "$total"
  done
  rm -rf "$work"
done
