#!/usr/bin/env bash
# The extension examples as a user builds them: installs the built project
# into BUILD/install (cmake --install), then configures, builds and tests
# each of examples/{custom_op,custom_kernel,emulated_device} out of tree
# against that prefix (find_package(paddle_lite), -DCMAKE_PREFIX_PATH),
# and checks the installed package itself: its headers need nothing but
# the prefix (no protobuf, Eigen, glog, oneDNN), and pkg-config builds the
# C++ API example and the C API's test. Called by scripts/test.sh after the
# main ctest.
#   scripts/test_examples.sh [BUILD_DIR]     (default: build)
# PDLITE_JOBS sets the build parallelism (default: nproc).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="$root/${1:-build}"
jobs="${PDLITE_JOBS:-$(nproc)}"
prefix="$build/install"
work="$build/examples-out-of-tree"
models="$(cd "$root/.." && pwd)/shared/models"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

rm -rf "$prefix" "$work"
mkdir -p "$work"
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "examples: cannot install $build into $prefix"
  exit 1
fi
echo "installed into $prefix"

passed=0
failed=0
for example in custom_op custom_kernel emulated_device; do
  out="$work/$example"
  log="$work/$example.log"
  echo "--- examples/$example (out of tree, against $prefix)"
  if cmake -S "$root/examples/$example" -B "$out" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DPDLITE_MODELS_DIR="$models" \
        "${launcher[@]}" >"$log" 2>&1 &&
     cmake --build "$out" -j"$jobs" >>"$log" 2>&1 &&
     ctest --test-dir "$out" --output-on-failure --timeout 600; then
    passed=$((passed + 1))
  else
    echo "FAILED: examples/$example (log: $log)"
    tail -30 "$log"
    failed=$((failed + 1))
  fi
done

# A new user builds the device example with nothing but the prefix: it
# configures, and its tests, which need a real model, say they are skipped.
echo "--- examples/emulated_device without -DPDLITE_MODELS_DIR"
out="$work/emulated_device_no_models"
log="$out.log"
if cmake -S "$root/examples/emulated_device" -B "$out" \
      -DCMAKE_PREFIX_PATH="$prefix" >"$log" 2>&1 &&
   ctest --test-dir "$out" -V >>"$log" 2>&1 &&
   grep -q "skipped: -DPDLITE_MODELS_DIR was not given" "$log" &&
   grep -q "0 tests failed out of 5" "$log"; then
  echo "configured; its 5 tests skipped, each saying why"
  passed=$((passed + 1))
else
  echo "FAILED: examples/emulated_device without PDLITE_MODELS_DIR (log: $log)"
  tail -30 "$log"
  failed=$((failed + 1))
fi

# The installed headers: none pulls in a dependency the package does not
# export (platform/eigen.h is the documented opt-in), and together they
# compile with only the prefix on the include path.
echo "--- installed headers"
include="$prefix/include/paddle_lite"
heavy=$(grep -rlE '#include *[<"](google/protobuf|Eigen/|unsupported/Eigen|glog/|gflags/|dnnl|oneapi/|.*\.pb\.h)' \
          "$include" | grep -v '/platform/eigen.h$' || true)
all_headers="$work/all_headers.cc"
(cd "$include" && find . -name '*.h' ! -path ./platform/eigen.h | sort |
   sed 's|^\./\(.*\)$|#include "\1"|') >"$all_headers"
if [ -n "$heavy" ]; then
  echo "FAILED: installed headers include protobuf/Eigen/glog/oneDNN: $heavy"
  failed=$((failed + 1))
elif ! c++ -std=c++17 -fsyntax-only -I"$include" "$all_headers"; then
  echo "FAILED: the installed headers do not compile on their own"
  failed=$((failed + 1))
else
  echo "$(wc -l <"$all_headers") headers compile with only -I$include"
  passed=$((passed + 1))
fi

# pkg-config: the README's C++ API example, built without CMake (the
# language standard is the program's to choose); and the C API's test, a
# C program, whose compiler must take the same flags without a word (a C
# compiler refuses, or warns of, a C++ flag such as -std=c++17).
echo "--- pkg-config"
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs paddle_lite)
  # shellcheck disable=SC2086
  if c++ -std=c++17 "$root/examples/cpp_api/main.cc" -o "$work/cpp_api_example" $flags &&
     "$work/cpp_api_example" "$root/models/demo_convnet" \
        "$root/models/demo_convnet/input_x.npy"; then
    passed=$((passed + 1))
  else
    echo "FAILED: examples/cpp_api with pkg-config flags: $flags"
    failed=$((failed + 1))
  fi
  # shellcheck disable=SC2086
  if cc -std=c11 -Werror "$root/unittests/c_api/c_api_test.c" \
        -o "$work/c_api_test" $flags -lm -pthread &&
     "$work/c_api_test" "$root/models/demo_convnet" >/dev/null; then
    passed=$((passed + 1))
  else
    echo "FAILED: the C API's test, a C program, with pkg-config flags: $flags"
    failed=$((failed + 1))
  fi
else
  echo "pkg-config not installed: skipped"
fi

echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
