#!/bin/sh
# Gathers the distroless stand-in's files into $1 (see Containerfile): the files of the
# packages below as installed, the CA bundle, the users, a /tmp and nonroot's home.
# Runs in the Debian stage; the final image has no shell to run anything.
set -eu
root="$1"
packages="libc6 libgcc-s1 tzdata"

mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/usr/lib64" "$root/etc/ssl/certs"
# Debian 12's merged /usr: the ELF interpreter is /lib64/ld-linux-x86-64.so.2.
for link in bin sbin lib lib64; do ln -s "usr/$link" "$root/$link"; done

# Every file (and symlink) the packages installed, at its canonical path.
dpkg -L $packages | while read -r path; do
  if [ -d "$path" ] && [ ! -L "$path" ]; then continue; fi
  [ -e "$path" ] || [ -L "$path" ] || continue
  echo "$(readlink -f "$(dirname "$path")")/$(basename "$path")"
done | sort -u > /tmp/files
tar -cf - --no-recursion -T /tmp/files | tar -xf - -C "$root" --keep-directory-symlink
# The CA bundle ca-certificates generates at install time (its scripts stay out), and
# which Debian release this is.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
cp -L /etc/os-release "$root/etc/os-release"

cat > "$root/etc/passwd" <<'USERS'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
USERS
cat > "$root/etc/group" <<'GROUPS'
root:x:0:
nobody:x:65534:
nonroot:x:65532:
GROUPS
mkdir -p "$root/tmp" "$root/home/nonroot" "$root/root"
chmod 1777 "$root/tmp"
chmod 700 "$root/root"
chown 65532:65532 "$root/home/nonroot"

# What makes it distroless: no shell and no package manager came along.
for absent in bin/sh bin/bash bin/dash usr/bin/dpkg usr/bin/apt; do
  if [ -e "$root/$absent" ]; then echo "stand-in holds $absent" >&2; exit 1; fi
done
