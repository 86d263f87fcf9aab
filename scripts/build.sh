#!/usr/bin/env bash
# Configures and builds (Release) into ./build: every target, or only the
# ones named (scripts/demo.sh builds just pdlite and the runtime).
#   scripts/build.sh [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
# The cache .ci/run and scripts/test_gpu.sh use, so that the README's
# commands and CI share one.
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.ccache}"
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
