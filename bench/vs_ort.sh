#!/usr/bin/env bash
# Side-by-side latency, load time and peak RSS of pdlite and ONNX Runtime on
# the models of ../shared/models that have an ONNX twin (same weights), with
# ../shared/peers/ort/vs.js: alternating rounds, ratios ours/ORT (below 1:
# ours is faster or smaller). Prints a table.
#
#   bench/vs_ort.sh [--rounds 4] [--warmup 5] [--iters 20] [--threads "1 2"]
#                   [--models "ppocr_det_ch_v3 ..."] [--quick]
#
# Needs Node.js and npm (the npm registry): ORT is installed with `npm ci`
# into a copy of the peer folder under build/ort_peer (never into shared/).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared="$root/../shared"
rounds=4 warmup=5 iters=20 threads="1 2"
models="ppocr_det_ch_v3 ppocr_det_en_v3 ppocr_det_ch_v2 ppocr_cls_mobile_v2 clas_mbv3_small_x0_35_3cls"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --quick) rounds=2 warmup=2 iters=5; shift ;;
    *) echo "usage: $0 [--rounds R] [--warmup W] [--iters K] [--threads \"1 2\"] [--models \"...\"] [--quick]" >&2; exit 2 ;;
  esac
done

pdlite="$root/build/tools/pdlite"
[ -x "$pdlite" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
peer="$root/build/ort_peer"
if [ ! -d "$peer/node_modules/onnxruntime-node" ]; then
  mkdir -p "$peer"
  cp "$shared"/peers/ort/*.js "$shared"/peers/ort/*.json "$shared"/peers/ort/*.sh "$peer"/
  cp "$shared"/peers/ort/.npmrc "$peer"/ 2>/dev/null || true
  (cd "$peer" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund >/dev/null)
fi

# Larger inputs: detectors at 1x3x640x640, classifiers at batch 8 (the
# shipped samples repeated), written once as .npy.
inputs_dir="$root/build/vs_ort_inputs"
mkdir -p "$inputs_dir"
node - "$shared/models" "$inputs_dir" <<'JS'
const fs = require('fs'), path = require('path');
const [models, out] = process.argv.slice(2);
function readNpy(file) {
  const b = fs.readFileSync(file);
  const len = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + len);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',')
      .filter(s => s.trim()).map(Number);
  return {shape, data: new Float32Array(b.buffer.slice(b.byteOffset + 10 + len,
                                                       b.byteOffset + b.length))};
}
function writeNpy(file, shape, data) {
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length == 1 ? ',' : ''}), }`;
  const total = 10 + h.length + 1, padded = Math.ceil(total / 64) * 64;
  h += ' '.repeat(padded - total) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'),
                                        Buffer.from(data.buffer)]));
}
const det = path.join(out, 'det_1x3x640x640.npy');
if (!fs.existsSync(det)) {
  const n = 3 * 640 * 640, d = new Float32Array(n);
  let s = 12345;
  for (let i = 0; i < n; i++) { s = (s * 1664525 + 1013904223) >>> 0; d[i] = (s / 4294967296) * 2 - 1; }
  writeNpy(det, [1, 3, 640, 640], d);
}
for (const m of ['ppocr_cls_mobile_v2', 'clas_mbv3_small_x0_35_3cls']) {
  const file = path.join(out, `${m}_batch8.npy`);
  if (fs.existsSync(file)) continue;
  const x = readNpy(path.join(models, m, 'ref', 'input_x.npy'));
  const per = x.data.length / x.shape[0], d = new Float32Array(per * 8);
  for (let i = 0; i < 8; i++) d.set(x.data.subarray((i % x.shape[0]) * per, (i % x.shape[0] + 1) * per), i * per);
  writeNpy(file, [8, ...x.shape.slice(1)], d);
}
JS

printf '%-28s %-18s %7s %12s %12s %10s %10s\n' model input threads median_ratio min_ratio load_ratio rss_ratio
for m in $models; do
  dir="$shared/models/$m"
  onnx=$(ls "$dir"/*.onnx | head -1)
  big="$inputs_dir/det_1x3x640x640.npy"
  case "$m" in ppocr_cls*|clas_*) big="$inputs_dir/${m}_batch8.npy" ;; esac
  for input in "$dir/ref/input_x.npy" "$big"; do
    label=$(basename "$input" .npy)
    [ "$input" = "$dir/ref/input_x.npy" ] && label="shipped"
    for t in $threads; do
      log=$(node "$peer/vs.js" --onnx "$onnx" --inputs "$input" --threads "$t" \
              --rounds "$rounds" --warmup "$warmup" --iters "$iters" \
              --ours "$pdlite bench --model $dir --input x=\$VS_INPUTS --threads \$VS_THREADS --warmup \$VS_WARMUP --iters \$VS_ITERS --json" 2>&1) || {
        echo "$m $label $t: vs.js failed:"; echo "$log" | tail -20; continue; }
      ratio() { echo "$log" | awk -v k="$1" '$1 == k {print $4}' | tail -1; }
      printf '%-28s %-18s %7s %12s %12s %10s %10s\n' "$m" "$label" "$t" \
        "$(ratio median_latency)" "$(ratio min_latency)" "$(ratio load_ms)" "$(ratio peak_rss_mb)"
    done
  done
done
