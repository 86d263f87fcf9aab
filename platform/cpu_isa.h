// The widest vector instruction set our own loops may use on this CPU.
// The default build targets the baseline x86-64 ISA (no -march=native);
// hot loops are compiled once per set below and pick at run time, as
// oneDNN's kernels do. oneDNN's cap, DNNL_MAX_CPU_ISA (or
// ONEDNN_MAX_CPU_ISA), caps ours too, so one setting narrows a whole run
// (and tests run every variant on one machine).
#pragma once

namespace paddle_lite {
namespace platform {

enum class CpuIsa { kBaseline, kAvx2, kAvx512 };

/// What the CPU runs (AVX2 counts with FMA), capped by DNNL_MAX_CPU_ISA:
/// a cap starting "AVX512" allows all, "AVX2" at most kAvx2, any other
/// (SSE41, AVX, ...) the baseline. Read once per process.
CpuIsa WidestCpuIsa();

}  // namespace platform
}  // namespace paddle_lite
