#!/usr/bin/env bash
# The store crates' offline query metadata (store/postgres/.sqlx, store/sqlite/.sqlx): each
# backend's queries described by a live database of that backend, so that a build needs no
# database. Run it after changing a query or a migration; `--check` (CI) fails when the
# committed metadata is not what the queries and migrations give today.
#
# It uses sqlx-cli (pinned, installed into ~/.cache/levelforge/sqlx-cli when missing): for
# each backend, a scratch database migrated with `sqlx migrate run`, then
# `cargo sqlx prepare [--check]` in the backend's crate, whose sqlx.toml names the variable
# its query macros read the database URL from.
# PostgreSQL: the server of LEVELFORGE_TEST_POSTGRES, else a throwaway cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/setup.sh
trap 'stop_postgres; rm -rf "$scratch"' EXIT
scratch="$(mktemp -d "${TMPDIR:-/tmp}/levelforge-sqlx.XXXXXX")"

check=()
[ "${1:-}" = --check ] && check=(--check)

SQLX_CLI_VERSION=0.9.0
root="${LEVELFORGE_SQLX_CLI_ROOT:-$HOME/.cache/levelforge/sqlx-cli}"
if ! "$root/bin/sqlx" --version 2>/dev/null | grep -qF "$SQLX_CLI_VERSION"; then
  say "installing sqlx-cli $SQLX_CLI_VERSION into $root (once; a few minutes)"
  cargo install sqlx-cli --version "=$SQLX_CLI_VERSION" --locked --quiet --root "$root" \
    --no-default-features --features postgres,sqlite,rustls,sqlx-toml
fi
export PATH="$root/bin:$PATH"

if [ -z "${LEVELFORGE_TEST_POSTGRES:-}" ]; then
  { find_pg_bin || { apt_install postgresql && find_pg_bin; }; } && start_throwaway_postgres ||
    { say "needs PostgreSQL: set LEVELFORGE_TEST_POSTGRES or install its server binaries"; exit 1; }
fi
postgres_url="${LEVELFORGE_TEST_POSTGRES%/*}/levelforge_sqlx_$$"
sqlite_url="sqlite://$scratch/check.db"

prepare() { # crate directory, URL variable, URL
  sqlx database create --database-url "$3"
  sqlx migrate run --source "$1/migrations" --database-url "$3"
  (cd "$1" && env "$2=$3" cargo sqlx prepare "${check[@]}")
}
prepare store/postgres LEVELFORGE_POSTGRES_CHECK_URL "$postgres_url"
prepare store/sqlite LEVELFORGE_SQLITE_CHECK_URL "$sqlite_url"
sqlx database drop -y --database-url "$postgres_url"
if [ ${#check[@]} -gt 0 ]; then
  say "query metadata current: store/postgres/.sqlx, store/sqlite/.sqlx"
else
  say "query metadata refreshed: store/postgres/.sqlx, store/sqlite/.sqlx"
fi
