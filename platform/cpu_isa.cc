#include "platform/cpu_isa.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace paddle_lite {
namespace platform {
namespace {

CpuIsa Detect() {
  __builtin_cpu_init();
  CpuIsa isa = CpuIsa::kBaseline;
  if (__builtin_cpu_supports("avx512f")) {
    isa = CpuIsa::kAvx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    isa = CpuIsa::kAvx2;
  }
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap == nullptr) cap = std::getenv("DNNL_MAX_CPU_ISA");
  if (cap == nullptr || *cap == '\0') return isa;
  std::string name(cap);
  for (char& c : name) c = static_cast<char>(std::toupper(c));
  if (name.rfind("AVX512", 0) == 0 || name == "ALL") return isa;
  if (name.rfind("AVX2", 0) == 0) {
    return isa == CpuIsa::kAvx512 ? CpuIsa::kAvx2 : isa;
  }
  return CpuIsa::kBaseline;
}

}  // namespace

CpuIsa WidestCpuIsa() {
  static const CpuIsa isa = Detect();
  return isa;
}

}  // namespace platform
}  // namespace paddle_lite
