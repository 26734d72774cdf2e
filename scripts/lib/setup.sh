# Sourced by the scripts that set up services or servers: messages, apt installs, a
# throwaway PostgreSQL cluster (the caller traps stop_postgres on EXIT) and free ports.

say() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

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

# --- PostgreSQL ---------------------------------------------------------------------------
pg_dir=""
stop_postgres() {
  [ -n "$pg_dir" ] || return 0
  as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}

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
  local port ephemeral_low
  # Below the kernel's ephemeral range: a port in it can be taken at any moment as the
  # source port of an outgoing connection, which no listener check sees.
  ephemeral_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$ephemeral_low" -gt 21024 ] || ephemeral_low=30000
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % (ephemeral_low - 20000)))
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
