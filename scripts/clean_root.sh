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
# in ccache (a CI clone is not at /work/main). Each run starts from a
# fresh copy of the base root; scripts/lib/debian_root.sh says what is kept
# between runs: nothing that changes the outcome. The build in the root
# uses this machine's ccache (CCACHE_DIR, default ~/.ccache), so a second
# run compiles little; a header missing in the root still fails, since
# ccache checks every header a cached object was made from. (No
# CCACHE_BASEDIR: ccache would then hand the compiler relative paths, and
# __FILE__, which names each registrar's source, would change.) Needs root
# (debootstrap, chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
shared="$(cd .. && pwd)/shared"
command=("$@")
[ ${#command[@]} -gt 0 ] || command=(scripts/demo.sh)
base_packages="cmake,g++,make,git,python3"

start=$SECONDS
source scripts/lib/debian_root.sh
debian_root_prepare clean_root

base=$(debian_root_base "$base_packages")
root="$debian_root_cache/root"
debian_root_unpack "$base" "$root"
mkdir -p "$root$repo"
debian_root_clone_files | debian_root_copy_files "$root$repo"
echo "== clean root ready in $((SECONDS - start)) s: $root"

# The repository's root stays visible when it is under /tmp (a CI clone).
run_options=(--bind "$ccache_dir:/var/cache/pdlite-ccache"
             --env CCACHE_DIR=/var/cache/pdlite-ccache)
case "$repo" in /tmp/*) run_options+=(--keep-tmp) ;; esac
if [ -d "$shared" ]; then run_options+=(--bind "$shared:$shared:ro"); fi
status=0
debian_root_run "${run_options[@]}" "$root" "$repo" "${command[@]}" || status=$?
rm -rf --one-file-system "$root"
if [ "$status" -eq 0 ]; then
  echo "clean_root: '${command[*]}' passed on a clean Debian 12 root in $((SECONDS - start)) s"
else
  echo "clean_root: '${command[*]}' FAILED (exit $status) on a clean Debian 12 root" >&2
fi
exit "$status"
