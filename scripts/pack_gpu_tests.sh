#!/usr/bin/env bash
# Packs a CUDA build's GPU tests for a machine with a GPU but without this
# project's build dependencies (a lent GPU machine with NVIDIA's driver,
# CUDA and cuDNN libraries but no Debian oneDNN, protobuf, glog, gflags):
# build/'s ctest files, pdlite, the test binaries of the `gpu` and `cuda`
# cases, both libraries, and the shared libraries they load that are not
# glibc's, libstdc++'s or NVIDIA's (those the GPU machine has), under
# build/libs. ctest's files hold absolute paths: on the GPU machine, unpack
# the archive into a checkout of the same commit at this checkout's path,
# with ../shared/models beside it, then run
#   scripts/test_gpu.sh --prebuilt
#   . build/env.sh && bench/gpu_bench.sh
#   . build/env.sh && bench/serve_bench.py --device cuda:0
# Usage: scripts/pack_gpu_tests.sh [ARCHIVE]   (default build/gpu_tests.tar.xz)
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$(realpath -m "${1:-build/gpu_tests.tar.xz}")
[ -f build/libpaddle_lite_cuda.so ] ||
  { echo "no build/libpaddle_lite_cuda.so: build with -DPDLITE_WITH_CUDA=ON"; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
binaries="tools/pdlite unittests/operators_test unittests/cuda/cuda_gpu_test
  libpaddle_lite.so libpaddle_lite_cuda.so"
# The server and its load clients too, where built: bench/serve_bench.py
# --device cuda:0 runs from the same archive.
for b in tools/pdlite_server bench/pdlite_serve_load bench/pdlite_tcp_round_trip; do
  [ -x "build/$b" ] && binaries="$binaries $b"
done
(
  cd build
  find . -name CMakeFiles -prune -o \( -name CTestTestfile.cmake \
    -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
    -exec cp --parents -t "$stage" {} +
  # shellcheck disable=SC2086
  cp --parents -t "$stage" $binaries
  mkdir -p "$stage/libs"
  # shellcheck disable=SC2086
  ldd $binaries | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v "^$PWD/" |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/libcu|/libnv' |
    xargs -r cp -L -t "$stage/libs"
)
# Finds the packed libraries first, then CUDA's and cuDNN's wherever the GPU
# machine keeps them (a CUDA toolkit, or NVIDIA's Python wheels).
cat >"$stage/env.sh" <<'ENV'
# Sourced: LD_LIBRARY_PATH for the packed build (scripts/pack_gpu_tests.sh).
pdlite_libs=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/libs
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib \
    $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' \
      2>/dev/null); do
  for lib in "$d" "$d"/nvidia/*/lib; do
    if compgen -G "$lib/libcudnn.so.*" >/dev/null ||
        compgen -G "$lib/libcublas.so.*" >/dev/null; then
      pdlite_libs=$pdlite_libs:$lib
    fi
  done
done
export LD_LIBRARY_PATH=$pdlite_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset pdlite_libs
ENV
# shellcheck disable=SC2086
(cd "$stage" && strip --strip-unneeded $binaries)
(cd "$stage" && tar --transform 's,^,build/,' -cf - -- *) | xz -T0 -6 >"$archive"
echo "$archive: $(du -h "$archive" | cut -f1)"
