#!/usr/bin/env bash
# The GPU half of the tests: builds with the CUDA place (PDLITE_WITH_CUDA=ON)
# and runs every ctest case labelled `gpu` (each CUDA kernel against the
# PLAIN CPU kernel, every model of ../shared/models on cuda:0, clones in
# threads, the memory limit, zero-copy handles), then the no-GPU CUDA
# cases. Exit 0 only when every gpu case ran and passed: on a machine
# without a CUDA device the cases are skipped, and this script says so and
# exits 2, so a skip is never read as a pass.
#   scripts/test_gpu.sh
#   scripts/test_gpu.sh --prebuilt   # build/ unpacked from
#                                    # scripts/pack_gpu_tests.sh: no build
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
if [ "${1:-}" = --prebuilt ]; then
  [ -f build/env.sh ] || {
    echo "test_gpu: no build/env.sh; unpack scripts/pack_gpu_tests.sh's archive"
    exit 1
  }
  # shellcheck disable=SC1091
  . build/env.sh
else
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.ccache}"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPDLITE_WITH_CUDA=ON \
    >/dev/null || exit 1
  cmake --build build -j"$(nproc)" || exit 1
fi
cd build || exit 1
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
# One case, cuda.run_without_gpu, is skipped where there IS a GPU.
if [ "$skipped" -gt 1 ] || ! grep -q 'run_without_gpu .*Skipped' "$log"; then
  echo "test_gpu: $skipped case(s) SKIPPED: this machine has no usable CUDA"
  echo "device; the GPU half was not verified here."
  exit 2
fi
echo "test_gpu: every gpu case passed"
