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

say() { printf 'test.sh: %s\n' "$*" >&2; }

# apt-get as root, or through sudo when it needs no password; fails where there is no apt.
apt_updated=""
apt_install() {
  command -v apt-get >/dev/null || return 1
  local run=()
  if [ "$(id -u)" != 0 ]; then
    sudo -n true 2>/dev/null || return 1
    run=(sudo)
  fi
  if [ -z "$apt_updated" ]; then
    "${run[@]}" apt-get update -qq || return 1
    apt_updated=1
  fi
  say "installing $* (apt)"
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- Rust ---------------------------------------------------------------------------------
if ! command -v cargo >/dev/null; then
  say "missing: cargo (install Rust with rustup, https://rustup.rs)"
  exit 1
fi
if ! command -v cc >/dev/null; then
  apt_install gcc libc6-dev || missing+=("a C compiler (cc), for the bundled SQLite")
fi

# --- PostgreSQL ---------------------------------------------------------------------------
pg_dir=""
stop_postgres() {
  [ -n "$pg_dir" ] || return 0
  as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}
trap stop_postgres EXIT

# PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

find_pg_bin() {
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  if [ -z "$pg_bin" ] && command -v initdb >/dev/null; then
    pg_bin="$(dirname "$(command -v initdb)")"
  fi
  [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] && [ -x "$pg_bin/pg_ctl" ]
}

free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

start_throwaway_postgres() {
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  fi
  pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/levelforge-pg.XXXXXX")"
  [ "$(id -u)" = 0 ] && chown postgres "$pg_dir"
  as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust --no-sync -E UTF8 >"$pg_dir/initdb.log" 2>&1 ||
    { cat "$pg_dir/initdb.log" >&2; return 1; }
  local port
  for _ in 1 2 3; do
    port="$(free_port)" || return 1
    # fsync off: a test cluster need not survive a crash. Many servers per test: 300 slots.
    if as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 start \
      -o "-p $port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300" >/dev/null; then
      export LEVELFORGE_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres"
      say "throwaway PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on port $port ($pg_dir)"
      return 0
    fi
  done
  cat "$pg_dir/server.log" >&2
  return 1
}

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
