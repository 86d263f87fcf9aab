#!/usr/bin/env bash
# Runs one of this repository's commands on a clean Debian 12 root, as a new
# machine of this project's kind has it: debootstrap's minbase from this
# machine's own apt source plus only cmake, g++, make, git and python3.
# Nothing installed on this machine by hand can leak in, so a dependency
# that scripts/setup.sh does not install makes the command fail here.
#
#   scripts/clean_root.sh                     # README command 1: scripts/demo.sh
#   scripts/clean_root.sh scripts/test.sh     # README command 2
#
# The repository (tracked files and untracked ones git does not ignore, as
# a clone has them) is copied into the root at the path it has here, and
# ../shared is mounted read-only beside it, as here: the same paths make the
# same compile commands, so the root's build finds this machine's objects
# in ccache (a CI clone is not at /work/main). Each run starts from
# a fresh copy of the base root; what is kept between runs, under
# PDLITE_CLEAN_ROOT_CACHE (default ~/.cache/pdlite-clean-root), is only
# what does not change the outcome: the base root as a tarball and the .deb
# files apt downloaded. The build in the root uses this machine's ccache
# (CCACHE_DIR, default ~/.ccache), so a second run compiles little; a header
# missing in the root still fails, since ccache checks every header a
# cached object was made from. (No CCACHE_BASEDIR: ccache would then hand
# the compiler relative paths, and __FILE__, which names each registrar's
# source, would change.) Needs root (debootstrap, chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
shared="$(cd .. && pwd)/shared"
cache="${PDLITE_CLEAN_ROOT_CACHE:-$HOME/.cache/pdlite-clean-root}"
command=("$@")
[ ${#command[@]} -gt 0 ] || command=(scripts/demo.sh)
base_packages="cmake,g++,make,git,python3"

if [ "$(id -u)" -ne 0 ]; then
  echo "clean_root: needs root (debootstrap, chroot and mount)" >&2
  exit 1
fi
start=$SECONDS
scripts/setup.sh debootstrap

# The machine's own apt source for bookworm's main archive.
mirror=$(apt-get indextargets --format '$(CODENAME) $(REPO_URI)' |
         awk '$1 == "bookworm" { print $2; exit }')
if [ -z "$mirror" ]; then
  echo "clean_root: this machine's apt sources name no bookworm archive" >&2
  exit 1
fi

ccache_dir="${CCACHE_DIR:-$HOME/.ccache}"
mkdir -p "$cache/debs" "$ccache_dir"

# A root reaches the package registries as this machine does, and has no
# more of it: apt's sources and acquire settings (a proxy, a snapshot's
# validity), pip's global configuration and the local certificate
# authorities (a proxy's), which ca-certificates adds to the bundle.
copy_registry_config() {
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  rm -f "$1/etc/apt/sources.list"  # debootstrap's; the machine's replace it
  if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$1/etc/apt/"; fi
  find /etc/apt/sources.list.d -maxdepth 1 \( -name '*.list' -o -name '*.sources' \) \
    -exec cp {} "$1/etc/apt/sources.list.d/" \;
  grep -l '^Acquire::' /etc/apt/apt.conf.d/* 2>/dev/null |
    xargs -r cp -t "$1/etc/apt/apt.conf.d/"
  if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$1/etc/pip.conf"; fi
  mkdir -p "$1/usr/local/share/ca-certificates"
  find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' \
    -exec cp {} "$1/usr/local/share/ca-certificates/" \;
}

# Runs a command in root $1 from the repository, with a clean environment. It
# runs in a private mount namespace: every mount goes away with the command,
# whatever way it ends, so removing the root never reaches through one.
run_in_root() {
  local root=$1; shift
  mkdir -p "$root$repo" "$root$shared" "$root/var/cache/pdlite-ccache"
  unshare --mount --propagation private bash -euo pipefail -c '
    root=$1 repo=$2 shared=$3 debs=$4 ccache_dir=$5; shift 5
    mount -t proc proc "$root/proc"
    mount -t tmpfs -o mode=755 dev "$root/dev"
    for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
      IFS=: read -r name major minor <<<"$node"
      mknod -m 666 "$root/dev/$name" c "$major" "$minor"
    done
    mkdir "$root/dev/shm" && mount -t tmpfs shm "$root/dev/shm"
    # A repository under /tmp (a CI clone may be) stays visible.
    case "$repo" in /tmp/*) ;; *) mount -t tmpfs tmp "$root/tmp" ;; esac
    mount --bind "$debs" "$root/var/cache/apt/archives"
    mount --bind "$ccache_dir" "$root/var/cache/pdlite-ccache"
    if [ -d "$shared" ]; then
      mount --bind "$shared" "$root$shared"
      mount -o remount,bind,ro "$root$shared"
    fi
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      DEBIAN_FRONTEND=noninteractive \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      CCACHE_DIR=/var/cache/pdlite-ccache \
      bash -c "! command -v update-ca-certificates >/dev/null ||
               update-ca-certificates >/dev/null 2>&1
               cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
  ' bash "$root" "$repo" "$shared" "$cache/debs" "$ccache_dir" "$@"
}

# The base: minbase with the five packages, brought up to date from the
# machine's sources as a new machine is; made once and kept as a tarball.
key=$(echo "bookworm minbase $base_packages $mirror upgraded" | sha256sum | cut -c1-12)
base="$cache/base-$key.tar"
if [ ! -f "$base" ]; then
  echo "== debootstrap: bookworm minbase + $base_packages from $mirror (kept as $base)"
  staging="$cache/base-staging"
  rm -rf --one-file-system "$staging"
  log="$cache/debootstrap.log"
  if ! debootstrap --variant=minbase --include="$base_packages" bookworm \
         "$staging" "$mirror" >"$log" 2>&1 ||
     ! copy_registry_config "$staging" ||
     ! run_in_root "$staging" bash -c \
         'apt-get update -qq && apt-get upgrade -y -qq && apt-get clean' \
         >>"$log" 2>&1; then
    tail -30 "$log"
    echo "clean_root: making the base root failed (log: $log)" >&2
    exit 1
  fi
  rm -f "$staging"/var/cache/apt/archives/*.deb
  tar -C "$staging" -cf "$base.partial" . && mv "$base.partial" "$base"
  rm -rf --one-file-system "$staging"
fi

root="$cache/root"
rm -rf --one-file-system "$root"
mkdir -p "$root$repo"
tar -C "$root" -xf "$base"
copy_registry_config "$root"
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null |
  tar -C "$root$repo" -xf -
echo "== clean root ready in $((SECONDS - start)) s: $root"

status=0
run_in_root "$root" "${command[@]}" || status=$?
rm -rf --one-file-system "$root"
if [ "$status" -eq 0 ]; then
  echo "clean_root: '${command[*]}' passed on a clean Debian 12 root in $((SECONDS - start)) s"
else
  echo "clean_root: '${command[*]}' FAILED (exit $status) on a clean Debian 12 root" >&2
fi
exit "$status"
