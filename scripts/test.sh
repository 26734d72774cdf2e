#!/usr/bin/env bash
# The test command: sets up what the suite needs, then runs every test of the workspace
# without stopping at the first failing binary.
#
# - PostgreSQL: a throwaway cluster of its own (initdb into a temp dir, a free port, trust
#   auth), removed on exit. LEVELFORGE_TEST_POSTGRES=postgres://... uses that server instead.
# - The dashboard's browser test: Chromium (CHROMIUM, default /usr/bin/chromium), Node and
#   the pinned npm package of tests/browser.
# - The generated TypeScript client: Node and the pinned npm packages of tests/client-ts.
# - The proxy-cache test: Debian's nginx at /usr/sbin/nginx.
# On Debian/Ubuntu, as root or with sudo, what is missing is installed with apt and npm.
# Elsewhere the script names what is missing and runs the rest: tests whose service is
# absent show as "ignored" in cargo's summary, never as passed. LEVELFORGE_REQUIRE_ALL=1
# (CI) makes anything missing an error instead.
# Extra arguments go to `cargo test` (e.g. `scripts/test.sh --test api`).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"
features=()
missing=()

# say, apt_install, and the throwaway PostgreSQL cluster (start_throwaway_postgres).
source scripts/lib/setup.sh
trap stop_postgres EXIT

# --- Rust ---------------------------------------------------------------------------------
if ! command -v cargo >/dev/null; then
  say "missing: cargo (install Rust with rustup, https://rustup.rs)"
  exit 1
fi
if ! command -v cc >/dev/null; then
  apt_install gcc libc6-dev || missing+=("a C compiler (cc), for the bundled SQLite")
fi

# --- PostgreSQL ---------------------------------------------------------------------------
if [ -n "${LEVELFORGE_TEST_POSTGRES:-}" ]; then
  say "PostgreSQL: using LEVELFORGE_TEST_POSTGRES"
  features+=(test-postgres)
elif { find_pg_bin || { apt_install postgresql && find_pg_bin; }; } && start_throwaway_postgres; then
  features+=(test-postgres)
else
  missing+=("PostgreSQL server binaries (initdb, pg_ctl; Debian: apt-get install postgresql)")
fi

# --- Chromium, Node and the pinned npm package (the dashboard's browser test) --------------
if [ -z "${CHROMIUM:-}" ]; then
  export CHROMIUM=/usr/bin/chromium
  [ -x "$CHROMIUM" ] || apt_install chromium || true
fi
command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm || true
if [ ! -x "$CHROMIUM" ]; then
  missing+=("Chromium at $CHROMIUM (Debian: apt-get install chromium; or set CHROMIUM)")
elif ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=("Node.js and npm (Debian: apt-get install nodejs npm)")
elif [ -d tests/browser/node_modules/playwright-core ] ||
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error; then
  features+=(test-browser)
else
  missing+=("the npm package of tests/browser (npm ci --prefix tests/browser failed)")
fi

# --- The generated TypeScript client (openapi-typescript, openapi-fetch, tsc; pinned) ------
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=("Node.js and npm, for the generated TypeScript client (Debian: apt-get install nodejs npm)")
elif [ -d tests/client-ts/node_modules/openapi-typescript ] ||
  npm ci --prefix tests/client-ts --no-audit --no-fund --loglevel=error; then
  features+=(test-client-ts)
else
  missing+=("the npm packages of tests/client-ts (npm ci --prefix tests/client-ts failed)")
fi

# --- nginx (the proxy-cache test puts Debian's nginx in front of the server) ----------------
if [ -x /usr/sbin/nginx ] || apt_install nginx; then
  features+=(test-nginx)
else
  missing+=("nginx (Debian: apt-get install nginx)")
fi

# --- Run ----------------------------------------------------------------------------------
if [ "${#missing[@]}" -gt 0 ]; then
  for what in "${missing[@]}"; do say "missing: $what"; done
  if [ "${LEVELFORGE_REQUIRE_ALL:-}" = 1 ]; then
    say "LEVELFORGE_REQUIRE_ALL=1: not running with tests ignored"
    exit 1
  fi
  say "the tests that need it are reported as ignored"
fi
feature_args=()
if [ "${#features[@]}" -gt 0 ]; then
  feature_args=(--features "$(printf 'levelforge/%s,' "${features[@]}" | sed 's/,$//')")
fi
say "cargo test --workspace --no-fail-fast ${feature_args[*]} $*"
status=0
cargo test --workspace --no-fail-fast "${feature_args[@]}" "$@" || status=$?
for what in "${missing[@]}"; do say "not run (ignored): tests needing $what"; done
exit "$status"
