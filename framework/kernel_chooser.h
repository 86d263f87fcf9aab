// The one place that turns (op, declared input types, predictor settings)
// into a kernel: the executor, `pdlite inspect` and `pdlite kernels` all
// call ChooseKernel. Fallback order, first hit wins:
//   1. each preferred library, in order, on the predictor's place;
//   2. PLAIN on the predictor's place;
//   3. PLAIN on the CPU (inputs are then copied to the CPU, and outputs
//      live there).
// The data type and layout asked for never change: an op whose inputs are
// int64 only runs an int64 kernel.
#pragma once

#include <string>
#include <vector>

#include "framework/kernel_registry.h"

namespace paddle_lite {
namespace framework {

/// Where and with what a predictor wants its ops to run.
struct KernelPreference {
  platform::Place place;
  /// Preferred libraries, best first (e.g. {MKLDNN}); PLAIN is always
  /// tried after them.
  std::vector<LibraryType> libraries;
};

struct KernelChoice {
  OpKernelType expected;  // what the op asked for
  OpKernelType chosen;    // valid when kernel != nullptr
  const KernelEntry* kernel = nullptr;
  /// Why this kernel: "exact match", "fallback: ..."; or, when nothing
  /// fits, why every registered kernel was rejected.
  std::string reason;
  /// Inputs must be copied to chosen.place before running.
  bool needs_transfer = false;
};

/// The libraries a place kind prefers after the predictor's own (a device
/// plugin registers them when it loads: "cuda" -> {"CUDNN"}).
void RegisterPlaceLibraries(const std::string& place_kind,
                            std::vector<std::string> libraries);
std::vector<std::string> PlaceLibrariesOf(const std::string& place_kind);

KernelChoice ChooseKernel(const std::string& op_type,
                          DataType data_type,
                          DataLayout layout,
                          const KernelPreference& preference);

/// Convenience for an op instance: asks the op for its dtype and layout.
KernelChoice ChooseKernel(const OperatorWithKernel& op,
                          const KernelTypeContext& ctx,
                          const KernelPreference& preference);

}  // namespace framework
}  // namespace paddle_lite
