#!/usr/bin/env bash
# GPU benchmarks of issue 12 (not tests): median latency on cuda:0 of
#   ppocr_det_ch_v3 at 1x3x640x640, ppocr_cls_mobile_v2 at batch 8 and 64,
# each eager and with per-op GPU time (--profile), printed as pdlite bench
# reports it. Inputs are made here (seeded uniform values in [0, 1)).
#   bench/gpu_bench.sh [MODELS_DIR]   (default ../shared/models)
set -euo pipefail
cd "$(dirname "$0")/.."
models=${1:-../shared/models}
pdlite=build/tools/pdlite
[ -x "$pdlite" ] || { echo "build first (scripts/build.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# NAME SHAPE...: writes $work/NAME.npy, float32, with only the standard
# library (no numpy on a bare machine).
make_npy() {
  python3 - "$work/$1.npy" "${@:2}" <<'PY'
import random, struct, sys
path, dims = sys.argv[1], [int(d) for d in sys.argv[2:]]
n = 1
for d in dims:
    n *= d
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
    "".join("%d, " % d for d in dims))
header += " " * (63 - (len(header) + 10) % 64) + "\n"
random.seed(1)
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(struct.pack("<%df" % n, *(random.random() for _ in range(n))))
PY
}

make_npy det 1 3 640 640
make_npy cls8 8 3 48 192
make_npy cls64 64 3 48 192
run() {
  local label=$1 model=$2 input=$3
  echo "== $label"
  "$pdlite" bench --model "$models/$model" --input "x=$work/$input.npy" \
      --device cuda:0 --warmup 10 --iters 100 "${@:4}"
}
run "ppocr_det_ch_v3 1x3x640x640" ppocr_det_ch_v3 det
run "ppocr_cls_mobile_v2 batch 8" ppocr_cls_mobile_v2 cls8
run "ppocr_cls_mobile_v2 batch 64" ppocr_cls_mobile_v2 cls64
run "ppocr_det_ch_v3 1x3x640x640, per-op GPU time" ppocr_det_ch_v3 det --profile
