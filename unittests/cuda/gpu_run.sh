#!/usr/bin/env bash
# Runs a GPU test command; when the machine has no CUDA device, it is
# reported as skipped (exit 77, with the reason), never as passed.
#   gpu_run.sh COMMAND [ARGS...]
out=$("$@" 2>&1)
code=$?
echo "$out"
if [ $code -ne 0 ] && grep -q 'Unavailable: no CUDA device' <<<"$out"; then
  echo "skipped: no CUDA device on this machine"
  exit 77
fi
exit $code
