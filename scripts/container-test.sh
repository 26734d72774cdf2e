#!/usr/bin/env bash
# The container test: builds the image from the Dockerfile as it stands and runs it, alone
# and as the stack of docker-compose.yml, checking what ops rely on; prints the figures.
#
# podman (installed from apt when missing, with podman-compose in a venv), or docker where
# a docker engine answers. Base images that cannot be pulled are replaced by stand-ins
# built under the same names from deploy/stand-ins/ (Debian packages; a real image is
# always preferred). Every check prints one line; the first failure stops the run with
# exit status 1, and everything started is removed on exit.
#
#   LEVELFORGE_CT_PORT, LEVELFORGE_CT_PROXY_PORT   host ports (default: free ones)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
source scripts/lib/containers.sh

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/levelforge/target}"
IMAGE=levelforge:local   # the name docker-compose.yml gives the image it builds
run_id="lfct$$"
project="$run_id"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/levelforge-ct.XXXXXX")"
app="$run_id-app"
volume="$run_id-data"
# What the engine says besides (podman without systemd warns about health check timers).
engine_log="$scratch/engine.log"
port="${LEVELFORGE_CT_PORT:-$(free_port)}"
proxy_port="${LEVELFORGE_CT_PROXY_PORT:-$(free_port)}"
GRACE_MS=20000           # HTTP_SHUTDOWN_GRACE_MS in the Dockerfile's default and compose
figures=()

pass() { printf '  ok    %s\n' "$*"; }
fail() { printf '  FAIL  %s\n' "$*"; exit 1; }
figure() { figures+=("$(printf '%-44s %s' "$1" "$2")"); pass "$1: $2"; }
section() { printf '\n== %s\n' "$*"; }

cleanup() {
  local status=$?
  set +e
  [ -n "${host_pid:-}" ] && kill "$host_pid" 2>/dev/null
  if [ -n "$engine" ]; then
    in_compose --profile replicas down -v >/dev/null 2>&1
    "$engine" rm -f -t 0 "$app" "$run_id-scraper" >/dev/null 2>&1
    "$engine" volume rm -f "$volume" >/dev/null 2>&1
  fi
  rm -rf "$scratch"
  exit "$status"
}
trap cleanup EXIT

in_compose() {
  LEVELFORGE_PORT="$port" LEVELFORGE_PROXY_PORT="$proxy_port" \
    "${compose[@]}" -p "$project" -f docker-compose.yml "$@"
}

# GET a URL: the body on stdout; fails on a non-2xx status.
get() { curl -fsS --max-time 30 "$@"; }

# ==========================================================================================
# The image
# ==========================================================================================

build_image() {
  section "image"
  local started=$SECONDS ca=/etc/ssl/certs/ca-certificates.crt mounts=()
  # cargo inside the build reaches the crate registry through this machine's TLS, whose
  # CA a fresh Debian image does not hold: the host's bundle, read-only, at the same path.
  [ "$engine" = podman ] && [ -f "$ca" ] && mounts=(-v "$ca:$ca:ro")
  engine_build "${mounts[@]}" -t "$IMAGE" . > "$scratch/build.log" 2>&1 ||
    { tail -40 "$scratch/build.log"; fail "the Dockerfile builds"; }
  local cached
  cached=$(grep -c -- '--> Using cache' "$scratch/build.log" || true)
  figure "image build (load $(cut -d' ' -f1 /proc/loadavg))" \
    "$((SECONDS - started)) s, $cached steps from the layer cache"
  local bytes
  bytes=$("$engine" image inspect --format '{{.Size}}' "$IMAGE")
  figure "image size" "$((bytes / 1000000)) MB"
}

start_app() {
  "$engine" volume create "$volume" >/dev/null
  local started
  started=$(now_ms)
  # Cold generations unlimited, for the 1,000-level figure from one client.
  "$engine" run -d --name "$app" --read-only -v "$volume:/data" -p "127.0.0.1:$port:8080" \
    -e RATE_LIMIT_COLD_PER_MIN=0 "$IMAGE" >/dev/null 2>>"$engine_log"
  wait_healthy "$app" 60 || fail "the container reaches healthy"
  figure "start to healthy (its own HEALTHCHECK)" "$(($(now_ms) - started)) ms"
}

check_user_and_no_shell() {
  local user uid
  user=$("$engine" image inspect --format '{{.Config.User}}' "$IMAGE")
  uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$(main_pid "$app")/status")
  [ "$user" = 65532:65532 ] && [ "$uid" = 65532 ] || fail "runs as 65532 (USER $user, uid $uid)"
  for shell in /bin/sh /bin/bash /bin/dash /busybox/sh; do
    if "$engine" exec "$app" "$shell" -c true >/dev/null 2>&1; then
      fail "no shell in the image ($shell runs)"
    fi
  done
  pass "runs as uid 65532, and no shell runs in it (/bin/sh, bash, dash, busybox)"
}

check_read_only_root() {
  [ "$("$engine" inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$app")" = true ] ||
    fail "the root file system is read-only"
  if "$engine" exec "$app" levelforge keys list --database-url sqlite:///probe.db >/dev/null 2>&1; then
    fail "a store could be made outside /data"
  fi
  "$engine" exec "$app" levelforge keys list >/dev/null || fail "the store on /data opens"
  pass "--read-only root (no file can be made in /), the SQLite store on the volume at /data"
}

# The same level from the host's own binary, on a SQLite store of its own.
check_same_bytes() {
  local path="/levels/hard/7?game=skiddy" host_port binary="$CARGO_TARGET_DIR/debug/levelforge"
  [ -x "$binary" ] || cargo build -q --bin levelforge
  host_port=$(free_port)
  "$binary" serve --bind "127.0.0.1:$host_port" --admin-bind "127.0.0.1:$(free_port)" \
    --database-url "sqlite://$scratch/host.db" --first-run-key never >/dev/null 2>&1 &
  host_pid=$!
  for _ in $(seq 100); do get "http://127.0.0.1:$host_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  get "http://127.0.0.1:$host_port$path" > "$scratch/host.json"
  get "http://127.0.0.1:$port$path" > "$scratch/container.json"
  kill "$host_pid"; wait "$host_pid" 2>/dev/null || true; host_pid=""
  cmp -s "$scratch/host.json" "$scratch/container.json" ||
    fail "GET $path: the container's bytes differ from the host binary's"
  pass "GET $path: $(wc -c < "$scratch/container.json") bytes, identical to the host binary's"
}

check_keys_create() {
  local key
  key=$("$engine" exec "$app" levelforge keys create --role designer --name ops | tail -n1)
  [[ "$key" == lfk_* ]] || fail "levelforge keys create prints a key: $key"
  get -H "Authorization: Bearer $key" "http://127.0.0.1:$port/stats" >/dev/null ||
    fail "the new key opens /stats"
  designer_key="$key"
  pass "levelforge keys create through exec: a key that opens /stats"
}

# Three plays with Idempotency-Keys on the SQLite store, then a restart.
check_plays_survive_restart() {
  local level moves before after
  level=$(get "http://127.0.0.1:$port/levels/hard/7?game=skiddy")
  moves=$(printf '%s' "$level" | python3 -c 'import json,sys; print(json.load(sys.stdin)["solution"])')
  for i in 1 2 3; do
    curl -fsS -o /dev/null -H "Idempotency-Key: $run_id-restart-$i" \
      --json "{\"solved\":true,\"moves\":\"$moves\",\"time_ms\":$((1000 * i))}" \
      "http://127.0.0.1:$port/levels/hard/7/plays?game=skiddy" || fail "a play is stored"
  done
  before=$(plays_counted "$port")
  "$engine" restart -t 25 "$app" >/dev/null 2>>"$engine_log"
  wait_healthy "$app" 60 || fail "healthy again after the restart"
  after=$(plays_counted "$port")
  [ "$before" = 3 ] && [ "$after" = 3 ] || fail "plays before/after restart: $before/$after"
  pass "3 plays stored before the restart are there after it"
}

# The plays /stats counts, all games.
plays_counted() {
  get -H "Authorization: Bearer $designer_key" "http://127.0.0.1:$1/stats" |
    python3 -c 'import json,sys; print(sum(g["plays"]["count"] for g in json.load(sys.stdin)["groups"]))'
}

# Resident memory idle, then after 1,000 cold levels of every game and tier.
measure_memory() {
  figure "RSS idle (VmRSS)" "$(memory_mb "$app" VmRSS) MB"
  local games=(fruit skiddy hashi tetropica hopper) tiers=(easy medium hard expert) started
  started=$(now_ms)
  for i in $(seq 1000 1999); do
    echo "http://127.0.0.1:$port/levels/${tiers[i % 4]}/$i?game=${games[i % 5]}"
  done | xargs -P 4 -I{} curl -fsS -o /dev/null {} || fail "1,000 cold levels served"
  figure "1,000 cold levels, 4 clients" "$(($(now_ms) - started)) ms"
  figure "RSS after them (VmRSS / VmHWM)" \
    "$(memory_mb "$app" VmRSS) / $(memory_mb "$app" VmHWM) MB"
}

check_sigterm_stop() {
  local started elapsed status
  started=$(now_ms)
  "$engine" stop -t $((GRACE_MS / 1000 + 5)) "$app" >/dev/null 2>>"$engine_log"
  elapsed=$(($(now_ms) - started))
  status=$("$engine" inspect --format '{{.State.ExitCode}}' "$app")
  [ "$status" = 0 ] && [ "$elapsed" -lt "$GRACE_MS" ] ||
    fail "SIGTERM stops it by itself within HTTP_SHUTDOWN_GRACE_MS (exit $status after $elapsed ms)"
  figure "SIGTERM to exit (exit status 0)" "$elapsed ms"
}

# ==========================================================================================
# The stack
# ==========================================================================================

# The container of a compose service (podman-compose and docker compose name them apart).
service() {
  "$engine" ps -a --filter "label=com.docker.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -n1
}

check_compose_up() {
  section "stack: docker-compose.yml (${compose[*]##*/})"
  in_compose up -d > "$scratch/compose-up.log" 2>&1 || { cat "$scratch/compose-up.log"; fail "compose up"; }
  # podman-compose ignores `condition: service_healthy`: wait for health here.
  wait_healthy "$(service postgres)" 90 || fail "postgres healthy"
  wait_healthy "$(service levelforge)" 180 || fail "levelforge healthy"
  get "http://127.0.0.1:$port/levels/hard/7?game=skiddy" > "$scratch/compose.json"
  cmp -s "$scratch/compose.json" "$scratch/container.json" || fail "the stack serves the same level"
  local stored
  stored=$(psql_in_stack "SELECT count(*) FROM levels WHERE game = 'skiddy'")
  [ "$stored" -ge 1 ] || fail "the level is stored in PostgreSQL"
  pass "up: the level served, and stored in PostgreSQL ($stored skiddy row)"
}

psql_in_stack() {
  "$engine" exec "$(service postgres)" psql -U levelforge -d levelforge -Atc "$1"
}

check_replicas_behind_nginx() {
  in_compose --profile replicas up -d > "$scratch/compose-replicas.log" 2>&1 ||
    { cat "$scratch/compose-replicas.log"; fail "compose --profile replicas up"; }
  wait_healthy "$(service replica-1)" 180 || fail "replica-1 healthy"
  wait_healthy "$(service replica-2)" 180 || fail "replica-2 healthy"
  for _ in $(seq 100); do get "http://127.0.0.1:$proxy_port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
  get "http://127.0.0.1:$proxy_port/levels/hard/7?game=skiddy" > "$scratch/proxy.json" ||
    fail "nginx serves"
  cmp -s "$scratch/proxy.json" "$scratch/container.json" || fail "the same level through nginx"
  pass "replicas profile: the same level through nginx on port $proxy_port"
}

# GETs through nginx while replica-1 stops; each client retries a failure.
check_replica_stop_loses_nothing() {
  local failures="$scratch/lost" retried="$scratch/retried"
  : > "$failures"
  # 20 levels over and over: the replicas' stop, not generation, is under test.
  for i in $(seq 0 399); do echo $((2000 + i % 20)); done | while read -r seed; do
    curl -fsS -o /dev/null --max-time 20 --retry 5 --retry-all-errors --retry-delay 1 \
      "http://127.0.0.1:$proxy_port/levels/easy/$seed?game=fruit" 2>>"$retried" ||
      echo "$seed" >> "$failures"
    sleep 0.02
  done &
  local clients=$!
  sleep 2
  "$engine" stop -t 25 "$(service replica-1)" >/dev/null 2>>"$engine_log"
  wait "$clients"
  [ ! -s "$failures" ] || fail "requests lost while a replica stopped: $(wc -l < "$failures")"
  "$engine" start "$(service replica-1)" >/dev/null 2>>"$engine_log"
  wait_healthy "$(service replica-1)" 60 || fail "replica-1 back"
  pass "400 GETs through nginx while replica-1 stopped: none lost ($(grep -c 'returned error' "$retried" || true) answers retried by the clients)"
}

# Plays with Idempotency-Keys through nginx while postgres restarts: every one is retried
# with its key until acknowledged; then each is stored once.
check_postgres_restart() {
  local acked="$scratch/acked" before keys_before started1 started2 rows
  : > "$acked"
  before=$(psql_in_stack "SELECT count(*) FROM plays")
  # Keys are stored as digests of the caller's scope and the key, so rows are counted.
  keys_before=$(psql_in_stack "SELECT count(*) FROM play_idempotency")
  started1=$("$engine" inspect --format '{{.State.StartedAt}}' "$(service replica-1)")
  started2=$("$engine" inspect --format '{{.State.StartedAt}}' "$(service replica-2)")
  post_plays_until_acknowledged 60 "$acked" &
  local clients=$!
  sleep 3
  "$engine" restart -t 10 "$(service postgres)" >/dev/null 2>>"$engine_log"
  wait "$clients" || fail "every play acknowledged after the restart"
  wait_healthy "$(service postgres)" 60 || fail "postgres healthy again"
  rows=$(($(psql_in_stack "SELECT count(*) FROM play_idempotency") - keys_before))
  [ "$(wc -l < "$acked")" = 60 ] && [ "$rows" = 60 ] ||
    fail "acknowledged $(wc -l < "$acked"), idempotency rows $rows"
  [ "$(psql_in_stack "SELECT count(*) FROM plays")" = $((before + 60)) ] ||
    fail "plays stored once each"
  [ "$("$engine" inspect --format '{{.State.StartedAt}}' "$(service replica-1)")" = "$started1" ] &&
    [ "$("$engine" inspect --format '{{.State.StartedAt}}' "$(service replica-2)")" = "$started2" ] ||
    fail "the replicas were not restarted"
  # A replica finds the database back on its next probe (at most one a second).
  ready_again replica-1 && ready_again replica-2
  pass "postgres restarted mid-traffic: 60 plays acknowledged, 60 rows, replicas ready without a restart"
  local refusals="none"
  [ -s "$scratch/refused" ] &&
    refusals="$(sort "$scratch/refused" | uniq -c | awk '{ printf "%s%s x %s", sep, $1, $2; sep = ", " }')"
  figure "postgres restart: answers other than 201" "$refusals (each retried with its key)"
}

ready_again() { # SERVICE: /readyz answers 200 within 15 s
  for _ in $(seq 15); do
    scrape "$(service "$1")" /readyz 2>/dev/null | grep -q '200 OK' && return
    sleep 1
  done
  fail "$1 ready again"
}

post_plays_until_acknowledged() { # COUNT FILE
  local url="http://127.0.0.1:$proxy_port/levels/easy/2000/plays?game=fruit" status
  for i in $(seq "$1"); do
    for _ in $(seq 120); do
      status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -H "Idempotency-Key: $run_id-pg-$i" \
        --json "{\"solved\":false,\"moves\":\"\",\"time_ms\":$i}" "$url" || true)
      [ "$status" = 201 ] && { echo "$i" >> "$2"; break; }
      echo "$status" >> "$scratch/refused"
      sleep 0.5
    done
    sleep 0.1
  done
}

# An HTTP/1.0 GET from a container on the compose network (bash's /dev/tcp, in the
# postgres image): the ops listener as a scraper sees it.
scrape() { # CONTAINER PATH
  local network
  network=$("$engine" inspect --format '{{range $name, $_ := .NetworkSettings.Networks}}{{$name}}{{end}}' "$1")
  "$engine" run --rm --network "$network" --entrypoint bash docker.io/library/postgres:16 \
    -c "exec 3<>/dev/tcp/$1/9090 && printf 'GET $2 HTTP/1.0\r\nHost: scraper\r\n\r\n' >&3 && cat <&3"
}

check_metrics_only_inside() {
  local name published
  scrape "$(service replica-2)" /metrics > "$scratch/metrics" || true
  grep -q '^levelforge_http_requests_total' "$scratch/metrics" || fail "a scraper reads /metrics"
  for service_name in levelforge replica-1 replica-2; do
    name=$(service "$service_name")
    published=$("$engine" port "$name" 2>/dev/null || true)
    if grep -q '^9090/' <<< "$published"; then fail "$service_name publishes the ops port: $published"; fi
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 404 ] ||
    fail "/metrics on the public port answers 404"
  pass "a scraper on the compose network reads /metrics; no host port reaches the ops listener"
}

# ==========================================================================================

main() {
  local started=$SECONDS
  section "engine and base images"
  choose_engine
  pass "engine: $engine ($("$engine" --version))"
  base_images | while read -r line; do pass "$line"; done
  build_image
  start_app
  check_user_and_no_shell
  check_read_only_root
  check_same_bytes
  check_keys_create
  check_plays_survive_restart
  measure_memory
  check_sigterm_stop
  check_compose_up
  check_replicas_behind_nginx
  check_replica_stop_loses_nothing
  check_postgres_restart
  check_metrics_only_inside
  section "figures (load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs; whole run $((SECONDS - started)) s)"
  printf '  %s\n' "${figures[@]}"
}

main "$@"
