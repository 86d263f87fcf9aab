#!/usr/bin/env bash
# README command 2: sets up, builds and runs every test (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
# The extension examples, built out of tree against the installed package.
cd .. && scripts/test_examples.sh build
