#!/usr/bin/env bash
# Builds with AddressSanitizer (+UBSan-free, leak checking on) and with
# ThreadSanitizer into build-asan/ and build-tsan/, and runs the tests that
# exercise the runtime's own code paths: framework, API (clones in parallel
# threads, replay, memory), models. Usage: scripts/sanitize.sh [address|thread]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
kinds=${1:-"address thread"}
for kind in $kinds; do
  dir=build-${kind/address/asan}
  dir=${dir/thread/tsan}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDLITE_SANITIZE="$kind" >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target framework_test paddle_lite_api_test \
    platform_test operators_test models_test pdlite
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
  # OpenMP (oneDNN) keeps its own thread pool that TSan cannot see into.
  export TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/scripts/tsan.supp"
  export OMP_NUM_THREADS=1
  for t in platform_test framework_test paddle_lite_api_test models_test; do
    echo "== $kind: $t"
    "$dir/unittests/$t" --gtest_brief=1 2>&1 | tail -3 \
      || "$dir/unittests/models/$t" --gtest_brief=1 2>&1 | tail -3
  done
  echo "== $kind: operators_test"
  "$dir/unittests/operators_test" --gtest_brief=1 2>&1 | tail -3
done
