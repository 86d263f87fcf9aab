#!/usr/bin/env bash
# Runs the runtime's own test suites under AddressSanitizer (with leak
# checking), ThreadSanitizer and UndefinedBehaviorSanitizer, in
# build-asan/, build-tsan/ and build-ubsan/ (gcc). The API suite runs
# predictor clones in parallel threads; the operator suite runs every
# kernel.
# `address,undefined` runs the ASan suites with UBSan too, built by clang 14
# in build-fuzz/, the tree scripts/fuzz.sh builds its fuzzers in: CI builds
# one tree for both (coverage instrumentation is inert without libFuzzer).
# Under address, address,undefined and thread it also runs the server end to
# end (unittests/serve/serve_test.py: Triton's client over HTTP and gRPC)
# against that tree's pdlite_server: what the live server's threads do with
# real clients, which serve_test's gtests do not reach.
# Usage: scripts/sanitize.sh [address] [thread] [undefined] [address,undefined]
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
if [[ " ${kinds[*]} " == *" address,undefined "* ]]; then
  scripts/setup.sh --fuzz
else
  scripts/setup.sh
fi
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)
passed=0
failed=0
# Test binaries under DIR/unittests/ (serve/serve_test: the server's core,
# queues, batching and shutdown across worker threads; c_api/c_api_test:
# the C API from C, clones on threads of their own; tools_test: the fuzzers'
# program mutator, whose conversions UBSan checks).
all_suites=(platform_test framework_test paddle_lite_api_test operators_test
            tools_test serve/serve_test c_api/c_api_test)
for kind in "${kinds[@]}"; do
  compiler=()
  case "$kind" in
    address) dir=build-asan; suites=("${all_suites[@]}") ;;
    thread) dir=build-tsan
            suites=(framework_test paddle_lite_api_test serve/serve_test
                    c_api/c_api_test) ;;
    undefined) dir=build-ubsan; suites=("${all_suites[@]}") ;;
    address,undefined)
      dir=build-fuzz; suites=("${all_suites[@]}")
      # The same configuration as scripts/fuzz.sh, so neither rebuilds.
      compiler=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
                -DPDLITE_FUZZ=ON -DPDLITE_BUILD_BENCHMARKS=OFF) ;;
    *) echo "usage: $0 [address] [thread] [undefined] [address,undefined]" >&2
       exit 2 ;;
  esac
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compiler[@]}" \
    -DPDLITE_SANITIZE="$kind" >/dev/null
  targets=()
  for suite in "${suites[@]}"; do targets+=("${suite##*/}"); done
  end_to_end=false
  [ "$kind" != undefined ] && end_to_end=true
  if $end_to_end; then
    targets+=(pdlite pdlite_server_bin half_model loop_model)
  fi
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >/dev/null
  for suite in "${suites[@]}"; do
    # GrpcHealthTest runs a gRPC client and server in the test's own
    # process: under TSan, Debian's gRPC (built without it) hands calls
    # between its threads in code it does not see, and the reports land in
    # gRPC's header code on both sides. The live server's TSan run below
    # covers the health service instead, with a client in another process.
    args=(--gtest_brief=1)
    [ "$kind" = thread ] && [ "$suite" = serve/serve_test ] &&
      args+=(--gtest_filter=-GrpcHealthTest.*)
    # Not a gtest: it takes the demo model's folder.
    [ "$suite" = c_api/c_api_test ] && args=("$PWD/models/demo_convnet")
    # oneDNN's OpenMP runtime synchronizes in ways TSan cannot see: one
    # OpenMP thread keeps its reports about our code meaningful.
    # UBSan stops at its first report, so a finding fails the suite.
    if ASAN_OPTIONS=detect_leaks=1 OMP_NUM_THREADS=1 \
       UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
       TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/scripts/tsan.supp" \
       "$dir/unittests/$suite" "${args[@]}" \
         > "$dir/${suite##*/}.log" 2>&1; then
      echo "$kind $suite: $(grep -E '^\[  PASSED  \]|^[0-9]+ passed, 0 failed' \
                              "$dir/${suite##*/}.log")"
      passed=$((passed + 1))
    else
      echo "$kind $suite: FAILED"
      tail -40 "$dir/${suite##*/}.log"
      failed=$((failed + 1))
    fi
  done
  if $end_to_end; then
    # A TSan report does not stop the server (a stop would read as a crash
    # to the test), but makes it exit 66; the test also fails on any report
    # in a server's log. The suppressions cover Debian's libraries built
    # without TSan.
    if UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
       TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$PWD/unittests/serve/tsan_live_server.supp" \
       python3 unittests/serve/serve_test.py \
         --server "$dir/tools/pdlite_server" --pdlite "$dir/tools/pdlite" \
         --build-dir build --half-model "$dir/unittests/half_model" \
         --loop-model "$dir/unittests/loop_model" \
         > "$dir/serve_end_to_end.log" 2>&1; then
      echo "$kind serve_test.py: $(tail -1 "$dir/serve_end_to_end.log")"
      passed=$((passed + 1))
    else
      echo "$kind serve_test.py: FAILED"
      { grep -E '^FAIL|Sanitizer|runtime error' "$dir/serve_end_to_end.log" \
          || true; } | head -40
      tail -20 "$dir/serve_end_to_end.log"
      failed=$((failed + 1))
    fi
  fi
done
echo "sanitizers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
