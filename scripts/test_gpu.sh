#!/usr/bin/env bash
# The GPU half of the tests: builds with the CUDA place (PDLITE_WITH_CUDA=ON)
# and runs every ctest case labelled `gpu` (each CUDA kernel against the
# PLAIN CPU kernel, every model of ../shared/models on cuda:0, clones in
# threads, the memory limit, zero-copy handles), then the no-GPU CUDA
# cases. Exit 0 only when every gpu case ran and passed: on a machine
# without a CUDA device the cases are skipped, and this script says so and
# exits 2, so a skip is never read as a pass.
#   scripts/test_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.ccache}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPDLITE_WITH_CUDA=ON >/dev/null ||
  exit 1
cmake --build build -j"$(nproc)" || exit 1
cd build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest -L 'gpu|cuda' --output-on-failure --timeout 900 -j1 | tee "$log"
status=${PIPESTATUS[0]}
skipped=$(grep -c '\*\*\*Skipped' "$log")
echo
if [ "$status" -ne 0 ]; then
  echo "test_gpu: FAILED (see above)"
  exit 1
fi
if [ "$skipped" -gt 0 ]; then
  echo "test_gpu: $skipped case(s) SKIPPED: this machine has no usable CUDA"
  echo "device; the GPU half was not verified here."
  exit 2
fi
echo "test_gpu: every gpu case passed"
