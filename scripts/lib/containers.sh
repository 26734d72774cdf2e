# Sourced by scripts/container-test.sh: the container engine (docker where a docker engine
# answers, else podman, installed from apt with a containers.conf that works on this kind
# of machine), the base images or their stand-ins (deploy/stand-ins/), health, and
# figures. Needs scripts/lib/setup.sh (say, apt_install) sourced first.

LF_CACHE="${LEVELFORGE_CACHE:-$HOME/.cache/levelforge}"
PODMAN_COMPOSE_VERSION=1.6.0

# --- The engine ---------------------------------------------------------------------------
engine=""
compose=()

# docker when its engine answers; otherwise podman with runc and fixed rlimits (crun
# refuses hybrid cgroups, and the default rlimits cannot be set here), and podman-compose.
choose_engine() {
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    engine=docker
    compose=(docker compose)
    return
  fi
  engine=podman
  # netavark, podman's network stack, sets up container networks with iptables.
  command -v podman >/dev/null && command -v runc >/dev/null && command -v iptables >/dev/null ||
    apt_install podman runc netavark aardvark-dns catatonit iptables ||
    { say "needs podman, runc and iptables (apt)"; return 1; }
  mkdir -p "$LF_CACHE"
  export CONTAINERS_CONF="$LF_CACHE/containers.conf"
  cat > "$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
CONF
  local venv="$LF_CACHE/venv-podman-compose"
  if ! "$venv/bin/podman-compose" --version 2>/dev/null | grep -qF "$PODMAN_COMPOSE_VERSION"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
      "podman-compose==$PODMAN_COMPOSE_VERSION"
  fi
  compose=("$venv/bin/podman-compose")
}

# A build that keeps HEALTHCHECK: podman's default OCI format drops it.
engine_build() {
  if [ "$engine" = podman ]; then podman build --format docker "$@"; else docker build "$@"; fi
}

image_exists() { "$engine" image inspect "$1" >/dev/null 2>&1; }
image_label() { "$engine" image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null; }

# --- Base images and their stand-ins ------------------------------------------------------

# The Debian root file system the stand-ins start from (mmdebstrap, about a minute).
STAND_IN_BASE=localhost/levelforge-stand-in/debian:bookworm
stand_in_base() {
  image_exists "$STAND_IN_BASE" && return
  command -v mmdebstrap >/dev/null || apt_install mmdebstrap ||
    { say "needs mmdebstrap (apt) to make stand-in images"; return 1; }
  local tar="$scratch/debian-bookworm.tar"
  say "making the stand-ins' Debian bookworm base (mmdebstrap)"
  mmdebstrap --quiet --variant=minbase bookworm "$tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" </dev/null
  "$engine" import --change 'CMD ["/bin/bash"]' "$tar" "$STAND_IN_BASE" >/dev/null
  rm -f "$tar"
}

# What a stand-in is made from: its folder's files, and for rust the toolchain it copies.
stand_in_recipe() {
  { find "deploy/stand-ins/$1" -type f -print0 | sort -z | xargs -0 sha256sum
    if [ "$1" = rust ]; then rustc --version; fi; } | sha256sum | cut -c1-16
}

# Makes IMAGE available: as it is when pulled or cached for real, else the stand-in built
# from deploy/stand-ins/DIR (rebuilt when its recipe changed). Prints what it used.
base_image() { # IMAGE DIR
  local image="$1" dir="$2" recipe
  if image_exists "$image" && [ -z "$(image_label "$image" org.levelforge.stand-in)" ]; then
    echo "$image: the real image (cached)"; return
  fi
  if "$engine" pull -q "$image" >/dev/null 2>&1; then
    echo "$image: the real image (pulled)"; return
  fi
  recipe="$(stand_in_recipe "$dir")"
  if [ "$(image_label "$image" org.levelforge.stand-in.recipe)" = "$recipe" ]; then
    echo "$image: stand-in (cached), deploy/stand-ins/$dir"; return
  fi
  stand_in_base
  local extra=()
  if [ "$dir" = rust ]; then
    [ "$engine" = podman ] || { say "the rust stand-in mounts the host's toolchain: podman only"; return 1; }
    rust_matches "$image" || return 1
    extra=(-v "$(rustc --print sysroot):/toolchain:ro")
  fi
  local started=$SECONDS
  engine_build -q "${extra[@]}" --label "org.levelforge.stand-in.recipe=$recipe" \
    -t "$image" "deploy/stand-ins/$dir" >/dev/null
  echo "$image: stand-in built in $((SECONDS - started)) s, deploy/stand-ins/$dir"
}

# The rust stand-in copies the host's toolchain, which must be the tag's release.
rust_matches() {
  local want="${1##*:}"; want="${want%%-*}"
  rustc --version | grep -qF "rustc $want " && return
  say "the host's $(rustc --version) is not $want, which $1 names"; return 1
}

# The FROM images of the Dockerfile and docker-compose.yml, each with its stand-in folder.
base_images() {
  base_image docker.io/library/rust:1.95.0-bookworm rust
  base_image gcr.io/distroless/cc-debian12:nonroot distroless
  base_image docker.io/library/postgres:16 postgres
  base_image docker.io/library/nginx:1.27-alpine nginx
}

# --- Running containers -------------------------------------------------------------------

# The health of a container by its own health check: podman runs it on request (no
# systemd timer here), docker on its timer.
health() {
  if [ "$engine" = podman ]; then
    "$engine" healthcheck run "$1" >/dev/null 2>&1 && echo healthy || echo unhealthy
  else
    "$engine" inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null
  fi
}

# Waits until NAME is healthy; fails after SECONDS.
wait_healthy() { # NAME SECONDS
  local deadline=$((SECONDS + $2))
  until [ "$(health "$1")" = healthy ]; do
    [ "$SECONDS" -lt "$deadline" ] || { say "$1 not healthy after $2 s"; return 1; }
    sleep 0.2
  done
}

# The host pid of a container's main process.
main_pid() { "$engine" inspect --format '{{.State.Pid}}' "$1"; }

# A line of /proc/PID/status of a container's main process, in MB: VmRSS, VmHWM.
memory_mb() { # NAME FIELD
  awk -v f="$2:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$(main_pid "$1")/status"
}

# Milliseconds since the epoch.
now_ms() { date +%s%3N; }
