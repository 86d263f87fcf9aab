#!/usr/bin/env bash
# Command-line behaviour of pdlite: exit codes, usage, outputs written.
#   pdlite_test.sh PDLITE SOURCE_DIR HALF_MODEL_DIR LOOP_MODEL_DIR PLUGIN_DIR
# (the models of unittests/test_utils/half_model.h and loop_model.h, and
# the test plugins of unittests/plugins, which unittests/CMakeLists.txt
# writes into the build tree.)
set -u
pdlite="$1"
demo="$2/models/demo_convnet"
half="$3"
loop="$4"
plugins="$5"
slash_names="$6"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

expect() {  # expect CODE PATTERN -- command...
  local code="$1" pattern="$2"
  shift 3
  local out
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" -ne "$code" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $got (want $code), output lacks /$pattern/:"
    echo "$out" | head -20
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

expect 2 "usage:" -- "$pdlite"
# bench: one JSON object, every timed run listed, this process's peak RSS.
expect 0 '"samples_ms": \[[0-9.]+, [0-9.]+, [0-9.]+\]\}' -- \
  "$pdlite" bench --model "$demo" --inputs "$demo" --warmup 1 --iters 3 --json
expect 0 'latency ms: min [0-9.]+  median' -- \
  "$pdlite" bench --model "$demo" --input x="$demo/input_x.npy" --iters 2
# Started by a process holding 400 MB, bench still reports its own peak
# (under 100 MB for the demo), not the launcher's.
expect 0 '"peak_rss_mb": [0-9]{1,2}\.' -- python3 -c '
import os, sys
held = b"x" * (400 << 20)
os.execv(sys.argv[1], sys.argv[1:])' "$pdlite" bench --model "$demo" --inputs "$demo" --iters 1 --json
expect 0 "usage:" -- "$pdlite" --help
expect 2 "unknown command 'fly'" -- "$pdlite" fly
expect 2 "unknown flag '--bogus'" -- "$pdlite" run --bogus 1
expect 2 "run needs --model" -- "$pdlite" run
expect 2 "NAME=FILE.npy" -- "$pdlite" run --model "$demo" --input nonsense
expect 2 "missing --input x=FILE.npy" -- "$pdlite" run --model "$demo"
expect 2 "its inputs are: x" -- "$pdlite" run --model "$demo" --input y="$demo/input_x.npy"
expect 2 "--lod expects" -- "$pdlite" run --model "$demo" --input x="$demo/input_x.npy" --lod x=a,b
expect 1 "NotFound: .*no/such" -- "$pdlite" run --model /no/such --input x="$demo/input_x.npy"
expect 1 "NotFound: .*missing.npy" -- "$pdlite" run --model "$demo" --input x="$tmp/missing.npy"
expect 0 "softmax.tmp_0: float32 \[2, 10\]  min 0.08" -- \
  "$pdlite" run --model "$demo" --input x="$demo/input_x.npy" --output-dir "$tmp/nested/out"
if [ -f "$tmp/nested/out/softmax.tmp_0.npy" ]; then passed=$((passed + 1)); else
  echo "FAIL: run wrote no $tmp/nested/out/softmax.tmp_0.npy"; failed=$((failed + 1)); fi
expect 0 "OK: every output matches" -- \
  "$pdlite" run --model "$demo" --inputs "$demo" --expected "$demo" --threads 2
# A reference that differs gives exit 3.
cp "$demo/input_x.npy" "$tmp/input_x.npy"
"$pdlite" run --model "$demo" --input x="$demo/input_x.npy" --output-dir "$tmp/ref" >/dev/null
mv "$tmp/ref/softmax.tmp_0.npy" "$tmp/ref/expected_softmax.tmp_0.npy"
expect 0 "OK" -- "$pdlite" run --model "$demo" --inputs "$demo" --expected "$tmp/ref"
# Flip the top byte of the last float: a mismatch.
size=$(stat -c %s "$tmp/ref/expected_softmax.tmp_0.npy")
printf '\x3f' | dd of="$tmp/ref/expected_softmax.tmp_0.npy" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
expect 3 "MISMATCH softmax.tmp_0\[19\]" -- "$pdlite" run --model "$demo" --inputs "$demo" --expected "$tmp/ref" --threads 3
# An expected infinity matches only itself (its tolerance is infinite: any
# value had matched it).
printf '\x00\x00\x80\x7f' | dd of="$tmp/ref/expected_softmax.tmp_0.npy" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
expect 3 "MISMATCH softmax.tmp_0\[19\]: got [0-9.e-]+, expected inf" -- "$pdlite" run --model "$demo" --inputs "$demo" --expected "$tmp/ref"
# A flag where a value belongs is a value left out, not a value.
expect 2 "--output-dir needs a value, got the flag '--report'" -- "$pdlite" run --model "$demo" --inputs "$demo" --output-dir --report
expect 2 "--input needs a value, got the flag '--report'" -- "$pdlite" run --model "$demo" --input --report
expect 2 "--shapes needs a stream" -- "$pdlite" bench --model "$demo" --shapes ''
# A plugin whose init throws an exception of its own: exit 1, named.
expect 1 "init_throws_plugin.so' refused: its init threw the device is missing" -- "$pdlite" kernels --plugin "$plugins/libpdlite_test_init_throws_plugin.so"
# Without a warm-up at load, a one-off run of a small input goes to the
# generic kernels (on CPUs with AVX2 and FMA), and --report says so; with
# them off, or after the warm-up (the default), it does not.
if grep -q ' avx2 ' /proc/cpuinfo && grep -q ' fma ' /proc/cpuinfo; then
  expect 0 "the run went to the generic kernels" -- \
    env PDLITE_WARMUP=0 "$pdlite" run --model "$demo" --inputs "$demo" --report
fi
for env_setting in PDLITE_GENERIC_KERNELS=0 PDLITE_WARMUP=1; do
  if env "$env_setting" "$pdlite" run --model "$demo" --inputs "$demo" \
      --report | grep -q "generic kernels"; then
    echo "FAIL: --report names the generic kernels with $env_setting"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
expect 0 "every op has a kernel on cpu" -- "$pdlite" inspect --model "$demo"
expect 0 "#2 +batch_norm -> bn1.tmp_0  \{float32, cpu, AnyLayout, MKLDNN\} => \{float32, cpu, AnyLayout, (MKLDNN} \(exact match|PLAIN} \(fallback)" -- "$pdlite" inspect --model "$demo"
expect 0 "#2 +batch_norm -> bn1.tmp_0  \{float32, cpu, AnyLayout, PLAIN\} => \{float32, cpu, AnyLayout, PLAIN\} \(exact match\)" -- "$pdlite" inspect --model "$demo" --libraries=PLAIN
expect 0 "version +2.6.0" -- "$pdlite" inspect --model "$demo/model.pdmodel"
expect 1 "InvalidArgument: .*not a PaddlePaddle ProgramDesc" -- "$pdlite" inspect --model "$tmp/input_x.npy"
expect 0 "conv2d  \{float32, cpu, AnyLayout, PLAIN\}  .*kernels/cpu/plain/conv2d.cc  \[core\]" -- "$pdlite" kernels --op conv2d
expect 1 "no kernel is registered for op 'nope'" -- "$pdlite" kernels --op nope
expect 2 "belong to \`run\`" -- "$pdlite" inspect --model "$demo" --input x=a.npy
# The demo's program edited at the protobuf level, into DIR/model.pdmodel
# (with the demo's weights): `self_parent` makes block 0 its own parent;
# `undeclared_x` drops the declaration of its input x.
edit_demo() {
  mkdir -p "$tmp/$1"
  cp "$demo/model.pdiparams" "$tmp/$1/"
  python3 - "$1" "$demo/model.pdmodel" "$tmp/$1/model.pdmodel" <<'PY'
import sys
def varint(b, i):
    v = s = 0
    while True:
        v |= (b[i] & 0x7F) << s
        s += 7
        i += 1
        if b[i - 1] < 0x80:
            return v, i
def enc(v):
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)
def fields(b):  # (field, wire, raw bytes of the whole field, payload)
    i = 0
    while i < len(b):
        start = i
        tag, i = varint(b, i)
        wire = tag & 7
        if wire == 0:
            _, i = varint(b, i)
            yield tag >> 3, wire, b[start:i], None
        elif wire == 2:
            n, i = varint(b, i)
            yield tag >> 3, wire, b[start:i + n], b[i:i + n]
            i += n
        else:
            i += 8 if wire == 1 else 4
            yield tag >> 3, wire, b[start:i], None
def edited(f, r, payload):  # a field of block 0, as the edit leaves it
    if sys.argv[1] == "self_parent" and f == 2:  # BlockDesc.parent_idx
        return enc((2 << 3) | 0) + enc(0)
    if sys.argv[1] == "undeclared_x" and f == 3:  # BlockDesc.vars
        names = [p for g, _, _, p in fields(payload) if g == 1]
        if names == [b"x"]:
            return b""
    return r
program = open(sys.argv[2], "rb").read()
out, done = bytearray(), False
for field, wire, raw, payload in fields(program):
    if field == 1 and not done:  # ProgramDesc.blocks[0]
        block = b"".join(edited(f, r, p) for f, w, r, p in fields(payload))
        raw = enc((1 << 3) | 2) + enc(len(block)) + block
        done = True
    out += raw
open(sys.argv[3], "wb").write(bytes(out))
PY
}
# inspect and kernels --missing validate the program as a load does:
# block 0 made its own parent (once, an endless walk of parents).
edit_demo self_parent
expect 1 "block 0 names parent block 0" -- \
  timeout 20 "$pdlite" inspect --model "$tmp/self_parent"
expect 1 "block 0 names parent block 0" -- \
  timeout 20 "$pdlite" kernels --missing --model "$tmp/self_parent"
expect 1 "block 0 names parent block 0" -- \
  timeout 20 "$pdlite" run --model "$tmp/self_parent" --inputs "$demo"
# An input the program uses without declaring it is fed as it is (its
# handle has no declared type to give).
edit_demo undeclared_x
expect 0 "every output matches" -- "$pdlite" run --model "$tmp/undeclared_x" \
  --inputs "$demo" --expected "$demo"

# float16 and bfloat16: a float16 .npy feeds a FLOAT16 input; .npy has no
# bfloat16, so a float32 one feeds a BFLOAT16 input, rounded to it; a
# bfloat16 output is written widened to float32. sum = 2 * x16 + xb16.
python3 - "$tmp/half_in" "$tmp/half_ref" <<'PY'
import os, struct, sys
def npy(path, descr, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (1, 3), }" % descr
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + struct.pack("<3" + fmt, *values))
inputs, ref = sys.argv[1], sys.argv[2]
os.makedirs(inputs)
os.makedirs(ref)
npy(inputs + "/input_x16.npy", "<f2", "e", [1.5, -2, 0.25])
npy(inputs + "/input_xb16.npy", "<f4", "f", [0.5, 3, 1 + 3 * 2 ** -9])
# 1 + 3 * 2**-9 rounds to bfloat16 1 + 2**-7 (cut short, it would be 1),
# so sum[2] is 0.5 + 1.0078125.
npy(ref + "/expected_sum.npy", "<f4", "f", [3.5, -1, 1.5078125])
npy(ref + "/expected_sum16.npy", "<f2", "e", [3.5, -1, 1.5078125])
npy(ref + "/expected_sumb16.npy", "<f4", "f", [3.5, -1, 1.5078125])
PY
expect 0 "OK: every output matches" -- "$pdlite" run --model "$half" \
  --inputs "$tmp/half_in" --expected "$tmp/half_ref" --atol 0 --rtol 0 \
  --output-dir "$tmp/half_out"
if python3 - "$tmp/half_out" <<'PY'
import sys
out = sys.argv[1]
def descr(name):
    with open("%s/%s.npy" % (out, name), "rb") as f:
        return f.read(64).decode("latin1")
sys.exit(0 if "'<f2'" in descr("sum16") and "'<f4'" in descr("sumb16") else 1)
PY
then passed=$((passed + 1)); else
  echo "FAIL: run wrote sum16 not as <f2 or sumb16 not as <f4"
  failed=$((failed + 1)); fi

# Outputs "a/b" and "a__b" would both be written as a__b.npy: refused,
# not one written over the other; without files both are shown.
python3 - "$tmp/slash_x.npy" <<'PY'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }"
header += " " * (63 - len(header) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode("latin1") + struct.pack("<3f", 1, 2, 3))
PY
expect 2 "outputs 'a/b' and 'a__b' would share the file a__b" -- \
  "$pdlite" run --model "$slash_names" --input x="$tmp/slash_x.npy" \
  --output-dir "$tmp/slash_out"
expect 2 "outputs 'a/b' and 'a__b' would share the file a__b" -- \
  "$pdlite" run --model "$slash_names" --input x="$tmp/slash_x.npy" \
  --expected "$tmp"
expect 0 "a__b: float32 \[1, 3\].*first \[3, 6, 9\]" -- \
  "$pdlite" run --model "$slash_names" --input x="$tmp/slash_x.npy"
[ ! -e "$tmp/slash_out" ] && passed=$((passed + 1)) || {
  echo "FAIL: a refused run made $tmp/slash_out"; failed=$((failed + 1)); }

# Limits on what one run may do (a hostile or broken model): the loop
# model counts to n, and a 16x3x128x128 input makes the demo's first conv
# output 4 MB.
python3 - "$tmp/loop" "$tmp/big" <<'PY'
import os, struct, sys
def npy(path, descr, fmt, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(%s,)" % ", ".join(map(str, shape)))
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)
loop, big = sys.argv[1], sys.argv[2]
os.makedirs(loop)
os.makedirs(big)
npy(loop + "/input_i.npy", "<i8", "q", [1], struct.pack("<q", 0))
npy(loop + "/input_n.npy", "<i8", "q", [1], struct.pack("<q", 60))
npy(big + "/input_x.npy", "<f4", "f", [16, 3, 128, 128],
    b"\0" * (16 * 3 * 128 * 128 * 4))
PY
expect 0 "int64 \[1\]  min 60" -- "$pdlite" run --model "$loop" --inputs "$tmp/loop" \
  --max-loop-iterations 60
expect 1 "ResourceExhausted: .*59 loop iterations" -- "$pdlite" run --model "$loop" \
  --inputs "$tmp/loop" --max-loop-iterations 59
expect 1 "ResourceExhausted: .*limit for one tensor" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/big" --max-tensor-mb 1
expect 1 "ResourceExhausted: .*limit for a run's memory" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/big" --max-run-mb 4
expect 0 "softmax.tmp_0: float32 \[16, 10\]" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/big" --max-tensor-mb 64 --max-run-mb 256
expect 2 "--max-loop-iterations must be in \\[0, " -- "$pdlite" run --model "$loop" \
  --inputs "$tmp/loop" --max-loop-iterations -1
expect 2 "--max-run-mb must be in" -- "$pdlite" bench --model "$demo" \
  --inputs "$demo" --max-run-mb -3

# Bad numbers, flags of another command and misspelt libraries: exit 2 (or
# the runtime's error), naming the flag, never gflags' own exit or a
# silent default.
expect 2 "--threads takes a value of type int32, got 'abc'" -- "$pdlite" run \
  --model "$demo" --inputs "$demo" --threads abc
expect 2 "--threads takes a value of type int32, got '99999999999'" -- \
  "$pdlite" run --model "$demo" --inputs "$demo" --threads 99999999999
expect 2 "--threads must be in \[1, 1024\]" -- "$pdlite" inspect \
  --model "$demo" --threads -3
expect 2 "--atol must be a finite number" -- "$pdlite" run --model "$demo" \
  --inputs "$demo" --expected "$demo" --atol -1
expect 2 "--cache_mb must be in \\[1, 1073741824\\] \\(or -1, the default\\)" -- "$pdlite" run --model "$demo" \
  --inputs "$demo" --cache_mb -5
expect 2 "--iters is not a flag of .pdlite run." -- "$pdlite" run \
  --model "$demo" --inputs "$demo" --iters 5
expect 2 "--samples is not a flag of .pdlite bench." -- "$pdlite" bench \
  --model "$demo" --inputs "$demo" --samples 5
expect 2 "--profile is not a flag of .pdlite bench --shapes." -- "$pdlite" \
  bench --model "$demo" --shapes "x=1x3x32x32" --profile
expect 2 "--model is not a flag of .pdlite kernels." -- "$pdlite" kernels \
  --model "$demo"
# A library no kernel has: a usage error (exit 2), as a bad number is.
expect 2 "No kernel library is named 'MKLDMN'" -- "$pdlite" run \
  --model "$demo" --inputs "$demo" --libraries MKLDMN
expect 2 "No kernel library is named 'MKLDMN'" -- "$pdlite" inspect \
  --model "$demo" --libraries MKLDMN
expect 2 "No kernel library is named 'MKLDMN'" -- "$pdlite" kernels \
  --missing --model "$demo" --libraries MKLDMN
expect 2 "--input gives 'x' twice" -- "$pdlite" run --model "$demo" \
  --input x="$demo/input_x.npy" --input x="$demo/input_x.npy"
# bench --shapes: a shape past the tensor limit is refused before its noise
# is made (it aborted on bad_alloc, or filled 16 GB).
expect 2 "x=100000x100000x100000x3 takes more than" -- "$pdlite" bench \
  --model "$demo" --shapes "x=100000x100000x100000x3" --passes 1
expect 2 "--passes must be in" -- "$pdlite" bench --model "$demo" \
  --shapes "x=1x3x32x32" --passes 2000000000
# --json keeps stdout to the JSON object, with --profile too.
out=$("$pdlite" bench --model "$demo" --inputs "$demo" --warmup 0 --iters 2 \
  --json --profile 2>/dev/null)
if python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out"; then
  passed=$((passed + 1)); else
  echo "FAIL: bench --json --profile printed no JSON object alone: $out"
  failed=$((failed + 1)); fi
# --help on stdout, for a pager.
if "$pdlite" --help 2>/dev/null | grep -q "usage:"; then
  passed=$((passed + 1)); else
  echo "FAIL: pdlite --help printed nothing on stdout"; failed=$((failed + 1)); fi
# A malformed line of an input's .lod.txt names the file and line.
mkdir -p "$tmp/badlod"
cp "$demo/input_x.npy" "$tmp/badlod/input_x.npy"
printf '0,2\n0,abc,7\n' > "$tmp/badlod/input_x.lod.txt"
expect 1 "input_x.lod.txt line 2: expected offsets" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/badlod"
# --lod takes the place of the file, which is then not read.
expect 0 "softmax.tmp_0: float32 \[2, 10\]" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/badlod" --lod x=0,2
# Offsets apart by commas and spaces, lines ending in CRLF.
printf '0, 2\r\n' > "$tmp/badlod/input_x.lod.txt"
expect 0 "softmax.tmp_0: float32 \[2, 10\]" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/badlod"
printf '0 2\n' > "$tmp/badlod/input_x.lod.txt"
expect 0 "softmax.tmp_0: float32 \[2, 10\]" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/badlod"
# An offset left out is not read past.
printf '0,,2\n' > "$tmp/badlod/input_x.lod.txt"
expect 1 "input_x.lod.txt line 1: expected offsets" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/badlod"
# A .npy header padded past 40,000 bytes (std::regex overflowed the stack).
python3 - "$demo/input_x.npy" "$tmp/padded.npy" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<H", data[8:10])[0]
header = data[10:10 + n].decode("latin1").rstrip()
header = header + " " * 40000 + "\n"
open(sys.argv[2], "wb").write(
    data[:8] + struct.pack("<H", len(header)) + header.encode("latin1") +
    data[10 + n:])
PY
expect 0 "softmax.tmp_0: float32 \[2, 10\]" -- "$pdlite" run --model "$demo" \
  --input x="$tmp/padded.npy"

# A pass with no shape seen before has no "seen" median: null, not 0.
out=$("$pdlite" bench --model "$demo" --shapes "x=1x3x32x32" --samples 1 \
  --passes 1 --json)
if python3 -c '
import json, sys
p = json.loads(sys.argv[1])["passes"][0]
sys.exit(0 if p["later_sight_median_ms"] is None and
         p["first_sight_median_ms"] > 0 else 1)' "$out"; then
  passed=$((passed + 1)); else
  echo "FAIL: bench --shapes --passes 1 --json: $out"; failed=$((failed + 1)); fi
# Nothing to compare without a shape seen twice: '-' and null, not 0.
out=$("$pdlite" bench --model "$demo" --shapes "x=1x3x32x32" --samples 1 \
  --passes 1 --json)
if python3 -c '
import json, sys
f = json.loads(sys.argv[1])["first_vs_steady"]
sys.exit(0 if f["median"] is None and f["max"] is None else 1)' "$out"; then
  passed=$((passed + 1)); else
  echo "FAIL: bench --shapes --passes 1: first_vs_steady: $out"
  failed=$((failed + 1)); fi
expect 0 "steady latency: - \(no shape was seen twice\)" -- "$pdlite" bench \
  --model "$demo" --shapes "x=1x3x32x32" --samples 1 --passes 1
# bench --shapes makes its inputs: data or a LoD given is refused, as are
# --samples and --seed with a shape file.
expect 2 "--input and --lod do not go with --shapes" -- "$pdlite" bench \
  --model "$demo" --shapes "x=1x3x32x32" --lod x=0,1
echo "x=1x3x32x32" > "$tmp/shapes.txt"
expect 2 "a shape file \(@$tmp/shapes.txt\) gives its samples" -- \
  "$pdlite" bench --model "$demo" --shapes "@$tmp/shapes.txt" --samples 3
# Inputs of float16 and bfloat16 (random values rounded to them; they
# were refused as float32 data).
expect 0 "a stream of 2 shapes" -- "$pdlite" bench --model "$half" \
  --shapes "x16=2x3;xb16=2x3" --samples 2 --passes 2
# bench --warmup 0 still makes the first run, and says so.
expect 0 "2 runs after 1 warm-up" -- "$pdlite" bench --model "$demo" \
  --inputs "$demo" --warmup 0 --iters 2
# A device or kernel library that cannot be: usage errors (exit 2).
expect 2 "--device 'cuda_pinned': cuda_pinned is page-locked host memory" \
  -- "$pdlite" \
  run --model "$demo" --inputs "$demo" --device cuda_pinned
expect 2 "--device: Cannot parse place 'cuda:abc'" -- "$pdlite" inspect \
  --model "$demo" --device cuda:abc
expect 2 "PDLITE_DEVICE: Cannot parse place ':'" -- env PDLITE_DEVICE=: \
  "$pdlite" inspect --model "$demo"
expect 2 "--libraries: No kernel library is named 'FOO'" -- "$pdlite" \
  bench --model "$demo" --inputs "$demo" --libraries MKLDNN,FOO
# An expected output missing: exit 1 before any run, nothing written.
mkdir -p "$tmp/no_expected"
expect 1 "lacks the expected values of output\(s\) of the model: .*expected_softmax.tmp_0.npy" \
  -- "$pdlite" run --model "$demo" --inputs "$demo" \
  --expected "$tmp/no_expected" --output-dir "$tmp/partial"
if [ ! -e "$tmp/partial" ]; then passed=$((passed + 1)); else
  echo "FAIL: run with an expected file missing wrote $tmp/partial"
  failed=$((failed + 1)); fi

# Messages that say what is wrong with a path.
expect 1 "Parameter file '$demo' is a folder" -- "$pdlite" run \
  --model "$demo/model.pdmodel" --params "$demo" --inputs "$demo"
expect 2 "--inputs $tmp/nowhere is no folder" -- "$pdlite" run \
  --model "$demo" --inputs "$tmp/nowhere"
touch "$tmp/a_file"
expect 1 "Cannot write file '$tmp/a_file/softmax.tmp_0.npy': Not a directory" \
  -- "$pdlite" run --model "$demo" --inputs "$demo" --output-dir "$tmp/a_file"
echo "x=[1:2]x3x32x32" > "$tmp/ranged.txt"
expect 2 "a shape file takes fixed dims, not ranges" -- "$pdlite" bench \
  --model "$demo" --shapes "@$tmp/ranged.txt"

# pdlite serve names an unknown flag as such (it said "needs a value").
if [ -x "$(dirname "$pdlite")/pdlite_server" ]; then
  expect 2 "unknown argument '--bogus'" -- "$pdlite" serve --bogus
fi

echo "pdlite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
