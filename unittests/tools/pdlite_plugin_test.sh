#!/usr/bin/env bash
# pdlite with plugins: --plugin (repeatable, comma-separated),
# PDLITE_PLUGIN_PATH, PDLITE_DEVICE, run --report, the copies inspect
# predicts, kernels --missing, and refused plugins.
#   pdlite_plugin_test.sh PDLITE SOURCE_DIR EMU_PLUGIN GOOD_PLUGIN
set -u
pdlite="$1"
demo="$2/models/demo_convnet"
emu="$(realpath "$3")"
good="$(realpath "$4")"
plugins="$(dirname "$good")"
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
    echo "$out" | head -30
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

# The registrant column names the plugin's path.
expect 0 "^relu  \{float32, emu, AnyLayout, PLAIN\}  .*emulated_device/kernels/relu.cc  \[$emu\]" -- \
  "$pdlite" kernels --op relu --plugin "$emu"
# Repeated and comma-separated --plugin.
expect 0 "plugin_test_double  .*\[$good\]" -- \
  "$pdlite" kernels --op plugin_test_double --plugin "$emu,$good"
expect 0 "plugin_test_double  .*\[$good\]" -- \
  "$pdlite" kernels --op plugin_test_double --plugin "$emu" --plugin="$good"
# A device nobody provides is an error naming it, not a CPU run.
expect 1 "NotFound: No device context is registered for place emu:0" -- \
  "$pdlite" run --model "$demo" --inputs "$demo" --device emu:0
# Run on the device: placement and copies with their bytes.
run=("$pdlite" run --model "$demo" --inputs "$demo" --expected "$demo"
     --plugin "$emu" --device emu:0 --report)
# The graph passes do not fuse conv + relu here: emu has no fused_conv2d
# kernel, so fusing would move the convs to the CPU.
expect 0 "#2 +relu  emu:0  PLAIN" -- "${run[@]}"
expect 0 "#3 +pool2d  emu:0  PLAIN" -- "${run[@]}"
expect 0 "#7 +flatten_contiguous_range  cpu  PLAIN  \(fallback: .*inputs are copied to cpu\)" -- "${run[@]}"
expect 0 "#7 +flatten_contiguous_range: copy pool2.tmp_0  emu:0 -> cpu  128 bytes" -- "${run[@]}"
expect 0 "on emu:0: [0-9]+ ops:.* pool2dx2" -- "${run[@]}"
expect 0 "OK: every output matches" -- "${run[@]}"
# Weights are copied once: the second run reuses them.
expect 0 "copy conv1.w_0  cpu -> emu:0  864 bytes  \(weight, copied by an earlier run\)" -- \
  "$pdlite" run --model "$demo" --inputs "$demo" --plugin "$emu" \
  --device emu:0 --report --repeat 2 --ir_optim=false
# The same from the environment.
expect 0 "on emu:0: [0-9]+ ops:.* pool2dx2" -- env PDLITE_DEVICE=emu:0 \
  PDLITE_PLUGIN_PATH="$(dirname "$emu")" "$pdlite" run --model "$demo" \
  --inputs "$demo" --report
# --device beats PDLITE_DEVICE.
expect 0 "on cpu: [0-9]+ ops:.* pool2dx2" -- env PDLITE_DEVICE=emu:0 "$pdlite" run \
  --model "$demo" --inputs "$demo" --report --device cpu
# inspect predicts the copies, with declared bytes or '?'.
expect 0 "#1 +conv2d: copy x  cpu -> emu:0  \? bytes \(dims \[-1, 3, 32, 32\]\)" -- \
  "$pdlite" inspect --model "$demo" --plugin "$emu" --device emu:0
expect 0 "#1 +conv2d: copy conv1.w_0  cpu -> emu:0  864 bytes  \(weight, copied once\)" -- \
  "$pdlite" inspect --model "$demo" --plugin "$emu" --device emu:0
# inspect's summary counts the ops that fall back to the CPU (it said
# "every op has a kernel on emu:0").
expect 0 "4 op\(s\) have no kernel on emu:0 and run on the CPU:" -- \
  "$pdlite" inspect --model "$demo" --plugin "$emu" --device emu:0
# kernels --missing: what falls back to the CPU.
expect 0 "batch_norm \(float32\) x1: falls back to \{float32, cpu, AnyLayout, PLAIN\}" -- \
  "$pdlite" kernels --missing --model "$demo" --device emu:0 --plugin "$emu"
expect 0 "4 op type\(s\), 4 op\(s\) without a kernel on emu:0; 8 op\(s\) run there" -- \
  "$pdlite" kernels --missing --model "$demo" --device emu:0 --plugin "$emu"
expect 2 "kernels --missing needs --model" -- "$pdlite" kernels --missing
# Refused plugins: exit 1 with the reason.
expect 1 "NotFound: Cannot load plugin '/no/such.so'" -- \
  "$pdlite" kernels --plugin /no/such.so
expect 1 "built for ABI version 999 but this runtime has ABI version" -- \
  "$pdlite" kernels --plugin "$plugins/libpdlite_test_abi999_plugin.so"
expect 1 "is registered twice: by core .* and by $plugins/libpdlite_test_duplicate_kernel_plugin.so" -- \
  "$pdlite" kernels --plugin "$plugins/libpdlite_test_duplicate_kernel_plugin.so"

echo "pdlite plugins: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
