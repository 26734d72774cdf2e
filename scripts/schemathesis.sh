#!/usr/bin/env bash
# Contract test: the real (debug) binary against openapi.yaml with schemathesis.
# Builds `levelforge`, makes a designer key in a fresh SQLite file, serves it on a free
# local port (the ops listener on another), runs schemathesis with schemathesis.toml
# (checks, bounds and credentials are there; the key goes in the environment, never to the
# log), then stops the server.
# Exit status: schemathesis's (non-zero on any failed check).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
VENV="${LEVELFORGE_VENV:-$HOME/.cache/levelforge/venv}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/levelforge/target}"

if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -qF "$SCHEMATHESIS_VERSION"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "schemathesis==$SCHEMATHESIS_VERSION"
fi

cargo build --quiet --bin levelforge
binary="$CARGO_TARGET_DIR/debug/levelforge"

work="$(mktemp -d)"
# free_port: a port below the kernel's ephemeral range (scripts/lib/setup.sh).
source scripts/lib/setup.sh
export BIND="127.0.0.1:$(free_port)"
# The ops listener (and `levelforge healthcheck`, which probes it).
export ADMIN_BIND="127.0.0.1:$(free_port)"
export DATABASE_URL="sqlite://$work/levelforge.db"

# A designer key for the designer routes: printed alone on the last line, kept in a
# variable only.
designer_key="$("$binary" keys create --role designer --name schemathesis | tail -n 1)"
case "$designer_key" in
  lfk_*) ;;
  *) echo "levelforge keys create printed no key" >&2; exit 1 ;;
esac
# Bounded for CI: no per-client limit (schemathesis is one client, and makes a player
# whenever its token is refused); generation and
# verification get a modest budget, and every refusal would still be a documented 503.
FIRST_RUN_KEY=never \
  RATE_LIMIT_COLD_PER_MIN=0 \
  RATE_LIMIT_PLAYS_PER_MIN=0 \
  RATE_LIMIT_VERIFY_PER_MIN=0 \
  RATE_LIMIT_HINTS_PER_MIN=0 \
  RATE_LIMIT_PLAYERS_PER_MIN=0 \
  RATE_LIMIT_PLAYERS_PER_NETWORK_PER_MIN=0 \
  GEN_BUDGET_MS="${GEN_BUDGET_MS:-5000}" \
  VERIFY_MAX_STATES="${VERIFY_MAX_STATES:-200000}" \
  RUST_LOG=warn \
  "$binary" serve >"$work/server.log" 2>&1 &
server=$!
stop() {
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT

for _ in $(seq 1 100); do
  "$binary" healthcheck >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
"$binary" healthcheck

status=0
# schemathesis.toml reads the key from the environment of schemathesis alone.
LEVELFORGE_DESIGNER_KEY="$designer_key" \
  "$VENV/bin/schemathesis" --config-file schemathesis.toml run openapi.yaml \
  --url "http://$BIND" "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- server log (warnings and errors) ---"
  tail -n 50 "$work/server.log"
fi
exit "$status"
