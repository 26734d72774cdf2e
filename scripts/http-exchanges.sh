#!/usr/bin/env bash
# Writes docs/http-exchanges.md: one real exchange per route (request and response with its
# headers, long bodies cut), recorded with curl against the debug binary serving a fresh
# SQLite file on a free local port. Usage: bash scripts/http-exchanges.sh > docs/http-exchanges.md
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/levelforge/target}"

cargo build --quiet --bin levelforge
binary="$CARGO_TARGET_DIR/debug/levelforge"
work="$(mktemp -d)"
# free_port: a port below the kernel's ephemeral range.
source scripts/lib/setup.sh
port="$(free_port)"
admin_port="$(free_port)"
export BIND="127.0.0.1:$port" ADMIN_BIND="127.0.0.1:$admin_port" DATABASE_URL="sqlite://$work/levelforge.db"
# A designer key for the designer routes: the last line of `keys create`.
key="$("$binary" keys create --role designer --name exchanges | tail -n1)"
FIRST_RUN_KEY=never RUST_LOG=warn "$binary" serve >"$work/server.log" 2>&1 &
server=$!
trap 'kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  "$binary" healthcheck >/dev/null 2>&1 && break
  sleep 0.1
done
base="http://$BIND"

# One exchange: a heading, the request as sent (curl -v's request lines) and the response
# (status, headers, body cut at $cut characters).
exchange() {
  local title="$1" cut="$2"
  shift 2
  echo "## $title"
  echo
  echo '```http'
  : >"$work/body"
  curl -sS -v "$@" -o "$work/body" -D "$work/headers" 2>"$work/trace" || true
  grep -E '^> ' "$work/trace" | sed -e 's/^> //' -e 's/\r$//' -e "s#$BIND#localhost:8080#" \
    -e "s#$ADMIN_BIND#localhost:9090#" | redact | grep -v '^$'
  if [ -s "$work/sent" ]; then echo; redact <"$work/sent"; echo; fi
  echo
  sed -e 's/\r$//' "$work/headers" | redact | grep -v '^$'
  [ -s "$work/body" ] && echo
  if [ ! -s "$work/body" ]; then
    :
  elif [ "$(wc -c <"$work/body")" -gt "$cut" ]; then
    head -c "$cut" "$work/body" | redact
    echo " …(cut; $(wc -c <"$work/body") bytes in all)"
  else
    redact <"$work/body"
    echo
  fi
  echo '```'
  echo
  : >"$work/sent"
}

# Secrets never reach the docs: each token's secret part becomes `…`.
redact() {
  sed -E 's/(lf[pks]_[0-9a-f]+_)[A-Za-z0-9_-]{43}/\1…/g'
}

# A request with a JSON body (shown under the request headers).
post() {
  local title="$1" cut="$2" url="$3" body="$4"
  shift 4
  printf '%s' "$body" >"$work/sent"
  exchange "$title" "$cut" -X POST -H 'content-type: application/json' --data-binary "@$work/sent" "$@" "$url"
}
: >"$work/sent"

level="$(curl -sS "$base/levels/easy/2?game=fruit")"
solution="$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["solution"]))' "$level")"
etag="$(curl -sS -D - -o /dev/null "$base/levels/easy/2?game=fruit" | tr -d '\r' | sed -n 's/^etag: //Ip')"

cat <<'EOF'
# HTTP exchanges

One real exchange per route, recorded by `scripts/http-exchanges.sh` (curl against the
debug binary on SQLite; `Date` headers and timings are those of that run). Bodies longer
than a few hundred bytes are cut where marked. openapi.yaml is the contract; this page
shows what goes over the wire.

EOF
exchange "GET /levels/{difficulty}/{seed}: a level (generated on first request)" 2000 \
  "$base/levels/easy/2?game=fruit"
exchange "GET /levels/{difficulty}/{seed} with If-None-Match: 304" 500 \
  -H "If-None-Match: $etag" "$base/levels/easy/2?game=fruit"
exchange "GET /levels/{difficulty}/{seed}: the largest seed (a string in the URL)" 600 \
  "$base/levels/easy/18446744073709551615?game=fruit"
exchange "GET /levels/{difficulty}/{seed}/preview.svg" 300 \
  "$base/levels/easy/2/preview.svg?game=fruit&solution=true"
post "POST /levels/{difficulty}/{seed}/check: the level's own solution" 1000 \
  "$base/levels/easy/2/check?game=fruit" "{\"moves\":$solution}"
post "POST /levels/{difficulty}/{seed}/check: a move that is not a letter (422)" 1000 \
  "$base/levels/easy/2/check?game=fruit" '{"moves":"UX"}'
exchange "POST /players: a new player and its token (shown once)" 600 -X POST "$base/players"
token="$(curl -sS -X POST "$base/players" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
post "POST /levels/{difficulty}/{seed}/plays: a rated play, with the player's token" 1000 \
  "$base/levels/easy/2/plays?game=fruit" "{\"solved\":true,\"moves\":$solution,\"time_ms\":5200}" \
  -H "Authorization: Bearer $token"
post "POST /levels/{difficulty}/{seed}/plays: a body naming a player (400)" 1000 \
  "$base/levels/easy/2/plays?game=fruit" "{\"solved\":false,\"moves\":\"\",\"client\":\"victim\"}"
exchange "GET /players/me" 600 -H "Authorization: Bearer $token" "$base/players/me"
exchange "GET /players/me/next: the level that fits the player now" 600 \
  -H "Authorization: Bearer $token" "$base/players/me/next?game=fruit&difficulty=harder"
post "POST /levels/{difficulty}/{seed}/check: hashi links" 1000 \
  "$base/levels/easy/1/check?game=hashi" '{"moves":[[[0,0],[1,0]]]}'
exchange "GET /levels/daily without a date: 307" 500 "$base/levels/daily?game=skiddy"
exchange "GET /levels/daily?date=…" 700 "$base/levels/daily?game=skiddy&date=2026-11-23"
exchange "GET /levels/{difficulty}: a pack of seeds" 500 "$base/levels/easy?game=hopper&from=1&count=2"
exchange "GET /levels: browse, with a designer key" 1200 -H "Authorization: Bearer $key" \
  "$base/levels?game=fruit&limit=2"
post "POST /verify" 1500 "$base/verify?game=fruit" \
  '{"width":7,"height":7,"grid":["#######","#.a####","#..####","#..####","#..a###","#..####","#######"]}' \
  -H "Authorization: Bearer $key"
exchange "GET /difficulty.svg: measured against predicted difficulty" 400 \
  -H "Authorization: Bearer $key" "$base/difficulty.svg?game=fruit"
exchange "GET /games" 900 "$base/games"
exchange "GET /stats" 1200 -H "Authorization: Bearer $key" "$base/stats?game=fruit&difficulty=easy"
exchange "GET /stats?format=csv" 900 -H "Authorization: Bearer $key" "$base/stats?game=fruit&format=csv"
exchange "GET /stats without a key (401)" 600 "$base/stats"
post "POST /session: the dashboard's sign-in with a key" 600 "$base/session" "{\"key\":\"$key\"}"
exchange "GET /: the dashboard" 300 "$base/"
exchange "GET /dashboard/app.js" 200 "$base/dashboard/app.js"
exchange "GET /dashboard/style.css" 200 "$base/dashboard/style.css"
exchange "GET /healthz" 200 "$base/healthz"
exchange "GET /readyz" 200 "$base/readyz"
exchange "GET /metrics on the ops listener (ADMIN_BIND)" 600 "http://$ADMIN_BIND/metrics"
exchange "GET /metrics on the public port (404)" 600 "$base/metrics"
exchange "DELETE /games: another method (405)" 500 -X DELETE "$base/games"
exchange "GET an unknown game (404)" 500 "$base/levels/easy/1?game=chess"
exchange "GET a seed past u64 (400)" 500 "$base/levels/easy/18446744073709551616"
python3 -c 'print("{\"moves\":\"" + "U" * 70000 + "\"}", end="")' >"$work/big"
echo "## POST a body over 64 KiB (413)"
echo
echo '```http'
curl -sS -i -X POST -H 'content-type: application/json' --data-binary "@$work/big" \
  "$base/levels/easy/2/check?game=fruit" | sed -e 's/\r$//'
echo
echo '```'
