# Clean Debian 12 roots made with debootstrap, shared by
# scripts/clean_root.sh and scripts/container_check.sh. Sourced, not run;
# needs root (debootstrap, chroot, mount).
#
# Kept between runs, under PDLITE_CLEAN_ROOT_CACHE (default
# ~/.cache/pdlite-clean-root), is only what does not change an outcome: each
# base root as a tarball and the .deb files apt downloaded.

debian_root_cache="${PDLITE_CLEAN_ROOT_CACHE:-$HOME/.cache/pdlite-clean-root}"
# The roots' builds use this machine's ccache.
ccache_dir="${CCACHE_DIR:-$HOME/.ccache}"

# Checks that the script ($1 names it) runs as root, and installs what roots
# are made with, and the packages named after it. From the repository's
# root.
debian_root_prepare() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "$1: needs root (debootstrap, chroot and mount)" >&2
    exit 1
  fi
  scripts/setup.sh debootstrap "${@:2}"
  mkdir -p "$ccache_dir"
}

# Prints this machine's own apt source for bookworm's main archive.
debian_root_mirror() {
  local mirror
  mirror=$(apt-get indextargets --format '$(CODENAME) $(REPO_URI)' |
           awk '$1 == "bookworm" { print $2; exit }')
  if [ -z "$mirror" ]; then
    echo "debian_root: this machine's apt sources name no bookworm archive" >&2
    return 1
  fi
  echo "$mirror"
}

# A root reaches the package registries as this machine does, and has no
# more of it: apt's sources and acquire settings (a proxy, a snapshot's
# validity), pip's global configuration and the local certificate
# authorities (a proxy's), which ca-certificates adds to the bundle.
debian_root_copy_registry_config() {
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  rm -f "$1/etc/apt/sources.list"  # debootstrap's; the machine's replace it
  if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$1/etc/apt/"; fi
  find /etc/apt/sources.list.d -maxdepth 1 \( -name '*.list' -o -name '*.sources' \) \
    -exec cp {} "$1/etc/apt/sources.list.d/" \;
  { grep -l '^Acquire::' /etc/apt/apt.conf.d/* 2>/dev/null || true; } |
    xargs -r cp -t "$1/etc/apt/apt.conf.d/"
  if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$1/etc/pip.conf"; fi
  mkdir -p "$1/usr/local/share/ca-certificates"
  find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' \
    -exec cp {} "$1/usr/local/share/ca-certificates/" \;
}

# Runs a command in a root, from a folder of it, with a clean environment:
#   debian_root_run [--bind SRC:DST[:ro]]... [--env NAME=VALUE]...
#                   [--user UID:GID] [--bare-env] [--keep-tmp] ROOT DIR COMMAND...
# It runs in a private mount namespace: every mount goes away with the
# command, whatever way it ends, so removing the root never reaches through
# one. apt's downloads land in the shared cache of .deb files. /tmp is a
# fresh tmpfs unless --keep-tmp (a repository under /tmp stays visible).
# The environment is PATH, HOME=/root, LANG=C.UTF-8, TERM=dumb and
# DEBIAN_FRONTEND=noninteractive, or with --bare-env only PATH (as a
# container's), then each --env. Without --user the local certificate
# authorities are installed first.
debian_root_run() {
  local binds=() envs=() user="" keep_tmp=0
  local base_env=(HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive)
  while [ $# -gt 0 ]; do
    case "$1" in
      --bind) binds+=("$2"); shift 2 ;;
      --env) envs+=("$2"); shift 2 ;;
      --user) user=$2; shift 2 ;;
      --keep-tmp) keep_tmp=1; shift ;;
      --bare-env) base_env=(); shift ;;
      *) break ;;
    esac
  done
  local root=$1 dir=$2; shift 2
  mkdir -p "$debian_root_cache/debs"
  binds=("$debian_root_cache/debs:/var/cache/apt/archives" "${binds[@]}")
  envs=("${base_env[@]}" "${envs[@]}")
  unshare --mount --propagation private bash -euo pipefail -c '
    root=$1 dir=$2 user=$3 keep_tmp=$4 nbinds=$5 nenvs=$6; shift 6
    binds=("${@:1:nbinds}"); shift "$nbinds"
    envs=("${@:1:nenvs}"); shift "$nenvs"
    mount -t proc proc "$root/proc"
    mount -t tmpfs -o mode=755 dev "$root/dev"
    for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
      IFS=: read -r name major minor <<<"$node"
      mknod -m 666 "$root/dev/$name" c "$major" "$minor"
    done
    mkdir "$root/dev/shm" && mount -t tmpfs shm "$root/dev/shm"
    [ "$keep_tmp" = 1 ] || mount -t tmpfs -o mode=1777 tmp "$root/tmp"
    for bind in "${binds[@]}"; do
      IFS=: read -r src dst mode <<<"$bind"
      mkdir -p "$root$dst"
      mount --bind "$src" "$root$dst"
      [ "$mode" != ro ] || mount -o remount,bind,ro "$root$dst"
    done
    setup="! command -v update-ca-certificates >/dev/null ||
           update-ca-certificates >/dev/null 2>&1"
    userspec=()
    if [ -n "$user" ]; then setup=":"; userspec=(--userspec="$user"); fi
    exec chroot "${userspec[@]}" "$root" /usr/bin/env -i \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      "${envs[@]}" \
      bash -c "$setup
               cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
  ' bash "$root" "$dir" "$user" "$keep_tmp" "${#binds[@]}" "${#envs[@]}" \
    "${binds[@]}" "${envs[@]}" "$@"
}

# Prints the path of a base root's tarball: debootstrap's minbase of
# bookworm with the packages named (comma separated, or none), brought up to
# date from the machine's sources as a new machine is; made once and kept.
debian_root_base() {
  local packages=$1 mirror key base staging log include=()
  mirror=$(debian_root_mirror) || return 1
  key=$(echo "bookworm minbase $packages $mirror upgraded" | sha256sum | cut -c1-12)
  base="$debian_root_cache/base-$key.tar"
  if [ ! -f "$base" ]; then
    echo "== debootstrap: bookworm minbase${packages:+ + $packages} from $mirror (kept as $base)" >&2
    mkdir -p "$debian_root_cache"
    staging="$base.staging"
    rm -rf --one-file-system "$staging"
    log="$base.log"
    [ -z "$packages" ] || include=(--include="$packages")
    if ! debootstrap --variant=minbase "${include[@]}" bookworm \
           "$staging" "$mirror" >"$log" 2>&1 ||
       ! debian_root_copy_registry_config "$staging" ||
       ! debian_root_run "$staging" / bash -c \
           'apt-get update -qq && apt-get upgrade -y -qq && apt-get clean' \
           >>"$log" 2>&1; then
      tail -30 "$log" >&2
      echo "debian_root: making the base root failed (log: $log)" >&2
      return 1
    fi
    rm -f "$staging"/var/cache/apt/archives/*.deb
    tar -C "$staging" -cf "$base.partial" . && mv "$base.partial" "$base" ||
      return 1
    rm -rf --one-file-system "$staging"
  fi
  echo "$base"
}

# The files a clone of the repository has (tracked ones, and untracked ones
# git does not ignore), NUL-separated, from the repository's root.
debian_root_clone_files() {
  git ls-files -z --cached --others --exclude-standard
}

# Copies the files named on standard input (NUL-separated, relative to the
# current folder) into folder $1, keeping their paths.
debian_root_copy_files() {
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$1" -xf -
}

# Unpacks a base root into a fresh folder, with the machine's registry
# configuration: debian_root_unpack BASE_TARBALL ROOT
debian_root_unpack() {
  rm -rf --one-file-system "$2"
  mkdir -p "$2"
  tar -C "$2" -xf "$1"
  debian_root_copy_registry_config "$2"
}
