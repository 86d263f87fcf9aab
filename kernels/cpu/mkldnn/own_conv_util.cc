#include "kernels/cpu/mkldnn/own_conv_util.h"

#include "kernels/cpu/mkldnn/own_loop_vectors.h"
#include "platform/cpu_isa.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

bool OwnConvLoopsAvailable() {
  static const bool available =
      platform::WidestCpuIsa() != platform::CpuIsa::kBaseline;
  return available;
}

bool OwnConvLoopsFuse(const operators::FusedActivation& activation) {
  own_loops::Act act;
  return own_loops::ActOf(activation, &act);
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
