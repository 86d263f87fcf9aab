#!/usr/bin/env bash
# The CUDA place without a GPU (CI, any developer machine):
#   cuda_place_test.sh kernels PDLITE KERNEL_FILES   every CUDA kernel file
#       registered something, listed by `pdlite kernels` with its file;
#   cuda_place_test.sh inspect PDLITE MODEL_DIR      `inspect --device
#       cuda:0` (as saved and after the passes) puts every op on a CUDA
#       kernel (CUDNN or PLAIN on cuda) and predicts the copies;
#   cuda_place_test.sh no_gpu PDLITE MODEL_DIR       `run --device cuda:0`
#       fails with a clear "no CUDA device" error and exit 1 (skipped, exit
#       77, where a GPU is present: the gpu cases cover that machine).
set -uo pipefail
mode=$1
pdlite=$2
fail() { echo "FAILED: $*"; exit 1; }

case "$mode" in
kernels)
  files=$3
  listing=$("$pdlite" kernels) || fail "pdlite kernels exited $?"
  cuda_lines=$(grep -c '{[a-z0-9]*, cuda, ' <<<"$listing")
  echo "pdlite kernels: $cuda_lines kernels on cuda"
  [ "$cuda_lines" -gt 0 ] || fail "no CUDA kernel listed"
  IFS='|' read -r -a sources <<<"$files"
  for src in "${sources[@]}"; do
    grep -q " $src  \[.*libpaddle_lite_cuda.so\]" <<<"$listing" ||
      fail "$src registered no kernel (or is not listed with its file)"
  done
  echo "all ${#sources[@]} CUDA kernel files registered kernels"
  # Library and place are in the key: a cuDNN conv and a PLAIN CUDA relu.
  grep -q '^conv2d  {float32, cuda, AnyLayout, CUDNN}  .*kernels/cuda/cudnn/conv2d.cc' <<<"$listing" ||
    fail "conv2d has no CUDNN kernel on cuda"
  grep -q '^relu  {float32, cuda, AnyLayout, PLAIN}  .*kernels/cuda/plain/relu.cu' <<<"$listing" ||
    fail "relu has no PLAIN kernel on cuda"
  ;;
inspect)
  model=$3
  for passes in "" "--passes"; do
    out=$("$pdlite" inspect --model "$model" --device cuda:0 $passes 2>&1) ||
      { echo "$out"; fail "inspect $passes exited $?"; }
    kernels=$(grep -E '^  #[0-9]+ +[a-z0-9_]+ -> ' <<<"$out" |
              grep -v 'runs without a kernel')
    total=$(grep -c . <<<"$kernels")
    on_cuda=$(grep -cE '=> \{[a-z0-9]+, cuda, [A-Za-z]+, (CUDNN|PLAIN)\}' <<<"$kernels")
    echo "inspect --device cuda:0 $passes: $on_cuda of $total kernel ops on cuda"
    if [ "$on_cuda" -ne "$total" ] || [ "$total" -eq 0 ]; then
      grep -vE '=> \{[a-z0-9]+, cuda, ' <<<"$kernels" | head -20
      fail "ops not on a CUDA kernel ($passes)"
    fi
    grep -q 'copies' <<<"$out" || { echo "$out" | tail -20; fail "no copies predicted"; }
    grep -E ': copy .* cpu -> cuda:0' <<<"$out" | head -3
  done
  ;;
no_gpu)
  model=$3
  out=$("$pdlite" run --model "$model" --inputs "$model" --device cuda:0 2>&1)
  code=$?
  echo "$out" | tail -5
  if [ $code -eq 0 ]; then
    echo "skipped: this machine has a CUDA device (the gpu cases test it)"
    exit 77
  fi
  [ $code -eq 1 ] || fail "exit $code, expected 1"
  grep -q 'Unavailable: no CUDA device' <<<"$out" || fail "no clear 'no CUDA device' error"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
echo OK
