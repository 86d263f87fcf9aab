#!/usr/bin/env bash
# README command 1: sets up, builds, and runs the main job (pdlite run) on
# the demo model the repository ships, then on a real PaddlePaddle model
# from ../shared/models when that folder is there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh pdlite
echo "== pdlite run on models/demo_convnet"
build/tools/pdlite run --model models/demo_convnet \
  --input x=models/demo_convnet/input_x.npy --output-dir out/demo_convnet \
  --expected models/demo_convnet
real=../shared/models/ppocr_cls_mobile_v2
if [ -d "$real" ]; then
  echo "== pdlite run on $real"
  build/tools/pdlite run --model "$real" --input x="$real/ref/input_x.npy" \
    --output-dir out/ppocr_cls_mobile_v2 --expected "$real/ref" --threads 2
fi
