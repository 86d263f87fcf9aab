#!/usr/bin/env bash
# Installs, from Debian 12's archive, every package that building, testing,
# the examples and the benchmarks need, if any is missing. Needs root or
# sudo (apt-get). Extra arguments are more packages to install the same way
# (.ci/run asks for debootstrap this way); --fuzz adds what the libFuzzer
# build needs (scripts/fuzz.sh): clang 14, its fuzzer and sanitizer
# runtimes, and LLVM's OpenMP for clang's -fopenmp.
#   scripts/setup.sh [--fuzz] [PACKAGE ...]
#
# Installed with --no-install-recommends, so a package that another one only
# recommends must be listed here when we need it: Debian's libdnnl-dev
# recommends ocl-icd-opencl-dev, yet its CMake config requires OpenCL.
set -euo pipefail
extra=()
if [ "${1:-}" = "--fuzz" ]; then
  shift
  extra=(clang-14 libclang-rt-14-dev libomp-14-dev)
fi
packages=(
  # the build
  cmake g++ make ccache pkg-config
  libprotobuf-dev protobuf-compiler libeigen3-dev
  libdnnl-dev ocl-icd-opencl-dev
  libgoogle-glog-dev libgflags-dev
  # the tests, the examples' tests and the guides' check
  libgtest-dev libgmock-dev perl
  # the benchmarks: Google Benchmark, and bench/vs_peers.py, which makes a
  # virtual environment under build/ for the peers it measures against
  # (pip reaches PyPI over HTTPS: ca-certificates)
  libbenchmark-dev python3 python3-venv ca-certificates
  # bench/serve_bench.py --client wrk: an HTTP load client with Lua
  wrk
  # `pdlite serve` (serve/, docs/serving.md): libmicrohttpd (its HTTP
  # server), cpp-httplib (the benchmark's load client), nlohmann-json,
  # simdjson (request bodies), gRPC with its protoc plugin, GnuTLS (which
  # libmicrohttpd serves HTTPS with; the server checks client certificates
  # with it), zlib (compressed bodies); its test also talks to it with curl,
  # and makes throwaway TLS certificates with openssl
  libmicrohttpd-dev libcpp-httplib-dev nlohmann-json3-dev libsimdjson-dev
  libgrpc++-dev protobuf-compiler-grpc libgnutls28-dev zlib1g-dev curl openssl
  ${extra[@]+"${extra[@]}"}
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "setup: installing these Debian packages needs root: run this as root or install sudo" >&2
      exit 1
    }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
