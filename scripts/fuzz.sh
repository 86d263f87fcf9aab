#!/usr/bin/env bash
# Builds the fuzzers (tools/fuzz/) with clang 14, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer in build-fuzz/, and runs
# each for SECONDS (default 60) from seeds read in place: the repo's demo
# model and, when ../shared/models is there, every real program, parameter
# file and reference .npy (nothing is copied into the repo). A crash, a
# sanitizer report or an input slower than 10 s stops that fuzzer and
# leaves the input in build-fuzz/artifacts/; make it a tiny regression
# file in unittests/fuzz_corpus/<fuzzer>/ once fixed.
#   scripts/fuzz.sh [SECONDS] [FUZZER ...]
#   (program params npy program_struct infer_request)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz
seconds="${1:-60}"
shift || true
fuzzers=("$@")
[ ${#fuzzers[@]} -gt 0 ] || fuzzers=(program params npy program_struct infer_request)
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.ccache}"
# The same configuration as `scripts/sanitize.sh address,undefined`, which
# builds its test suites in this tree.
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DPDLITE_FUZZ=ON -DPDLITE_BUILD_BENCHMARKS=OFF \
  -DPDLITE_SANITIZE=address,undefined >/dev/null
targets=()
for f in "${fuzzers[@]}"; do targets+=("fuzz_$f"); done
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}" >/dev/null

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds"/{program,params,npy,infer_request} build-fuzz/artifacts
link() { ln -sf "$(realpath "$1")" "$seeds/$2/$(echo "$1" | tr '/' '_')"; }
link models/demo_convnet/model.pdmodel program
link models/demo_convnet/model.pdiparams params
link models/demo_convnet/input_x.npy npy
if [ -d ../shared/models ]; then
  while IFS= read -r f; do link "$f" program; done < <(
    find ../shared/models -name '*.pdmodel' -o -name '__model__')
  while IFS= read -r f; do link "$f" npy; done < <(
    find ../shared/models -path '*/ref/*.npy' -size -1024k)
fi
passed=0
failed=0
for f in "${fuzzers[@]}"; do
  kind=$f
  [ "$f" = program_struct ] && kind=program
  corpus="$seeds/corpus_$f"
  dict=()
  [ -f "tools/fuzz/$f.dict" ] && dict=(-dict="tools/fuzz/$f.dict")
  mkdir -p "$corpus"
  log="build-fuzz/fuzz_$f.log"
  if UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
     ASAN_OPTIONS="detect_leaks=1" OMP_NUM_THREADS=1 \
     "build-fuzz/tools/fuzz_$f" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=4096 -max_len=$((4 << 20)) -print_final_stats=1 \
       -artifact_prefix="build-fuzz/artifacts/$f-" ${dict[@]+"${dict[@]}"} \
       "$corpus" "$seeds/$kind" "unittests/fuzz_corpus/$kind" > "$log" 2>&1; then
    echo "fuzz_$f: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') execs," \
         "$(grep -oE 'cov: [0-9]+' "$log" | tail -1) edges, no crash"
    passed=$((passed + 1))
  else
    echo "fuzz_$f: FAILED"
    grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$log" | head -20
    failed=$((failed + 1))
  fi
done
echo "fuzzers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
