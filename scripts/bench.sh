#!/usr/bin/env bash
# The performance figures of docs/benchmarks.md in one run: `levelforge bench` (cold generation of every
# game x tier, solver speed on fixed heavy levels), then the HTTP figures with wrk on
# loopback against a release server on a temporary SQLite database: warm GET /levels
# beside a same-sized body from memory (the ratio is the figure that matters), cold
# levels with random seeds, and the server's peak memory. Then the warm level against
# Debian's nginx serving the same bytes as files, in alternating rounds: identity against
# the plain file (deploy/nginx-static.conf) and gzip against `gzip_static`
# (deploy/nginx-gzip-static.conf), with the throughput ratios and p99s. Then bytes on the
# wire per route and coding. Last, the instruction counts of scripts/instructions.sh
# against their committed baseline.
#
#   scripts/bench.sh                 # about 10 minutes on 2 cores
#   SEEDS=50 DURATION=5s ROUNDS=2 scripts/bench.sh
#
# Settings (environment): SEEDS (1000), DURATION (10s per wrk run), THREADS (2),
# CONNECTIONS (64, warm runs), COLD_CONNECTIONS (8), WARM_PATH (/levels/hard/1?game=fruit),
# ROUNDS (3 rounds against nginx), ROUND_DURATION (8s per run in them), PORT (18089),
# NGINX_PORT (18090, plain file), NGINX_GZIP_PORT (18091). CARGO_TARGET_DIR is honoured.
set -euo pipefail

SEEDS=${SEEDS:-1000}
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
COLD_CONNECTIONS=${COLD_CONNECTIONS:-8}
WARM_PATH=${WARM_PATH:-/levels/hard/1?game=fruit}
PORT=${PORT:-18089}
NGINX_PORT=${NGINX_PORT:-18090}
NGINX_GZIP_PORT=${NGINX_GZIP_PORT:-18091}
ROUNDS=${ROUNDS:-3}
ROUND_DURATION=${ROUND_DURATION:-8s}
BASE="http://127.0.0.1:$PORT"

cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null || [ ! -x /usr/sbin/nginx ]; then
    echo "wrk or nginx is missing: installing them with apt-get" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq wrk nginx
fi

cargo build --release --bin levelforge
BIN="${CARGO_TARGET_DIR:-target}/release/levelforge"

"$BIN" bench --seeds "$SEEDS"

work=$(mktemp -d)
server=""
nginx=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; fi
    for pid in $nginx; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

# Prints one line per run: requests/s, latency p50 and p99 (ms), non-2xx, socket errors.
cat > "$work/report.lua" <<'LUA'
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.0f %.3f %.3f %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
LUA
# Cold keys: every request a random game, tier and seed (never generated before).
cat > "$work/cold.lua" <<'LUA'
local games = {"fruit", "skiddy", "hashi", "tetropica", "hopper"}
local tiers = {"easy", "medium", "hard", "expert"}
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(os.time() * 100 + id) end
function request()
  local path = string.format("/levels/%s/%d?game=%s", tiers[math.random(#tiers)],
    math.random(1, 2147483646), games[math.random(#games)])
  return wrk.format("GET", path)
end
LUA
cat "$work/report.lua" >> "$work/cold.lua"

BIND="127.0.0.1:$PORT" DATABASE_URL="sqlite://$work/bench.db" BENCH_ROUTES=true \
    RATE_LIMIT_COLD_PER_MIN=0 "$BIN" serve > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "$BASE/healthz" >/dev/null || { cat "$work/server.log"; exit 1; }

curl -fs "$BASE$WARM_PATH" >/dev/null  # generated and stored; from memory from now on
size=$(curl -fs -o /dev/null -w '%{size_download}' "$BASE$WARM_PATH")
BASELINE_PATH="/bench/bytes/$size"
curl -fs "$BASE$BASELINE_PATH" >/dev/null

# run NAME CONNECTIONS SCRIPT URL: a wrk run, its RESULT line kept as "NAME <figures>".
run() {
    local line
    line=$(wrk -t"$THREADS" -c"$2" -d"$DURATION" --timeout 10s -s "$3" "${@:5}" "$4" | grep '^RESULT')
    echo "$1 ${line#RESULT } $(cut -d' ' -f1 /proc/loadavg)" >> "$work/results"
}
memory() { awk -v k="$1:" '$1 == k { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }

run baseline "$CONNECTIONS" "$work/report.lua" "$BASE$BASELINE_PATH"
run warm "$CONNECTIONS" "$work/report.lua" "$BASE$WARM_PATH"
warm_hwm=$(memory VmHWM)
# Against nginx serving the same bytes as files: the plain file (deploy/nginx-static.conf,
# sendfile) and the .gz with gzip_static (deploy/nginx-gzip-static.conf), each its own
# nginx. Alternating rounds (nginx, levelforge, nginx, levelforge, ...) so that both
# sides see the same load from whatever else runs on the machine; before the cold run,
# whose last generations may still be finishing after it.
gz_size=0
start_nginx() { # NAME CONF PORT: an nginx serving level.json and level.json.gz
    local root="$work/$1"
    mkdir -p "$root/www"
    curl -fs "$BASE$WARM_PATH" -o "$root/www/level.json"
    curl -fs -H 'Accept-Encoding: gzip' "$BASE$WARM_PATH" -o "$root/www/level.json.gz"
    sed -e "s|@ROOT@|$root|g" -e "s|@PORT@|$3|g" "$2" > "$root/nginx.conf"
    # nginx's workers run as nobody: let them read the level.
    chmod 755 "$work" "$root" "$root/www"
    chmod 644 "$root/www/"level.json*
    /usr/sbin/nginx -p "$root" -e "$root/error.log" -c "$root/nginx.conf" &
    nginx="$nginx $!"
    for _ in $(seq 50); do
        curl -fs "http://127.0.0.1:$3/level.json" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fs "http://127.0.0.1:$3/level.json" | cmp - "$root/www/level.json" \
        || { cat "$root/error.log"; exit 1; }
    gz_size=$(stat -c %s "$root/www/level.json.gz")
}
start_nginx nginx-static deploy/nginx-static.conf "$NGINX_PORT"
start_nginx nginx-gzip deploy/nginx-gzip-static.conf "$NGINX_GZIP_PORT"
curl -fs -H 'Accept-Encoding: gzip' "http://127.0.0.1:$NGINX_GZIP_PORT/level.json" \
    | cmp - "$work/nginx-gzip/www/level.json.gz" || { cat "$work/nginx-gzip/error.log"; exit 1; }
STATIC_URL="http://127.0.0.1:$NGINX_PORT/level.json"
GZIP_URL="http://127.0.0.1:$NGINX_GZIP_PORT/level.json"
for _ in $(seq "$ROUNDS"); do
    DURATION=$ROUND_DURATION run nginx_static "$CONNECTIONS" "$work/report.lua" "$STATIC_URL"
    DURATION=$ROUND_DURATION run warm_identity "$CONNECTIONS" "$work/report.lua" "$BASE$WARM_PATH"
    DURATION=$ROUND_DURATION run nginx_gzip "$CONNECTIONS" "$work/report.lua" "$GZIP_URL" \
        -H 'Accept-Encoding: gzip'
    DURATION=$ROUND_DURATION run warm_gzip "$CONNECTIONS" "$work/report.lua" "$BASE$WARM_PATH" \
        -H 'Accept-Encoding: gzip'
done

run cold "$COLD_CONNECTIONS" "$work/cold.lua" "$BASE/"

hwm=$(memory VmHWM)
rss=$(memory VmRSS)
levels=$(grep -c 'generated level' "$work/server.log" || true)

# Bytes on the wire per route and coding (bodies only; the headers are the same ~250 B).
daily=$(curl -fs -o /dev/null -w '%{redirect_url}' "$BASE/levels/daily?game=hashi")
wire_routes=("$WARM_PATH" "/levels/expert/1?game=hashi" "/levels/expert?game=tetropica&from=1&count=100"
    "${daily#"$BASE"}" "/levels/hard/1/preview.svg?game=fruit" "/levels?game=tetropica"
    "/stats" "/stats?format=csv" "/games" "/" "/dashboard/app.js" "/dashboard/style.css")

echo
echo "HTTP on loopback: wrk -t$THREADS, $DURATION per run, release server, SQLite, RATE_LIMIT_COLD_PER_MIN=0"
printf '%-44s %6s %11s %9s %9s %8s %7s %6s\n' run conns requests/s "p50 ms" "p99 ms" non-2xx errors load
while read -r name rps p50 p99 non2xx errors load; do
    case $name in
        warm) label="warm GET $WARM_PATH ($size B)"; conns=$CONNECTIONS ;;
        baseline) label="baseline GET $BASELINE_PATH"; conns=$CONNECTIONS ;;
        cold) label="cold GET random game/tier/seed"; conns=$COLD_CONNECTIONS ;;
        warm_identity) label="warm GET level, identity ($size B)"; conns=$CONNECTIONS ;;
        warm_gzip) label="warm GET level, gzip ($gz_size B)"; conns=$CONNECTIONS ;;
        nginx_static) label="nginx plain file, same bytes"; conns=$CONNECTIONS ;;
        nginx_gzip) label="nginx gzip_static, same .gz"; conns=$CONNECTIONS ;;
    esac
    printf '%-44s %6s %11s %9s %9s %8s %7s %6s\n' "$label" "$conns" "$rps" "$p50" "$p99" "$non2xx" "$errors" "$load"
done < "$work/results"
warm_rps=$(awk '$1 == "warm" { print $2 }' "$work/results")
base_rps=$(awk '$1 == "baseline" { print $2 }' "$work/results")
awk -v w="$warm_rps" -v b="$base_rps" 'BEGIN {
    r = w / b; printf "warm / baseline throughput: %.2f (target >= 0.7: %s)\n", r, r >= 0.7 ? "ok" : "MISSED" }'
# versus LEVELFORGE_RUN NGINX_RUN TITLE: medians over the rounds of throughput and p99, and
# the target: at least nginx's throughput with a p99 no worse than nginx's.
versus() {
    awk -v w="$1" -v n="$2" -v title="$3" '
        function median(a, k,   i, j, t) {
            for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        $1 == w { wr[++nw] = $2; wp[nw] = $4 }
        $1 == n { nr[++nn] = $2; np[nn] = $4 }
        END {
            r = median(wr, nw) / median(nr, nn); p = median(wp, nw); q = median(np, nn)
            printf "%s: throughput %.2f of nginx, p99 %.2f ms against %.2f ms (medians of %d rounds; target >= 1 with p99 <= nginx: %s)\n",
                title, r, p, q, nw, (r >= 1 && p <= q) ? "ok" : "MISSED"
        }' "$work/results"
}
versus warm_identity nginx_static "warm identity / nginx plain file"
versus warm_gzip nginx_gzip "warm gzip / nginx gzip_static"
echo
echo "bytes on the wire (body) per route and Accept-Encoding"
printf '%-52s %8s %7s %7s %7s\n' route identity gzip br zstd
for route in "${wire_routes[@]}"; do
    printf '%-52s' "$route"
    for coding in identity gzip br zstd; do
        printf ' %7s' "$(curl -fs -o /dev/null -H "Accept-Encoding: $coding" -w '%{size_download}' "$BASE$route")"
    done
    echo
done
echo "levels generated by the cold run (and stored): $((levels - 1))"
awk -v w="$warm_hwm" -v h="$hwm" -v r="$rss" 'BEGIN {
    printf "memory: VmHWM %s MB after the warm runs, %s MB after the cold run; VmRSS %s MB (target < 200 MB: %s)\n",
        w, h, r, h < 200 ? "ok" : "MISSED" }'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# Instruction counts of the solver hot paths: unlike the figures above, the same on a busy
# machine as on a quiet one (scripts/instructions.sh, callgrind).
echo
echo "instruction counts (callgrind) against benches/instructions.baseline.json"
scripts/instructions.sh --check || echo "instruction counts: some over the baseline (see above)"
