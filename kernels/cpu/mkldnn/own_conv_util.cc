#include "kernels/cpu/mkldnn/own_conv_util.h"

#include "kernels/cpu/mkldnn/avx512_activation.h"
#include "platform/cpu_isa.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

bool OwnConvLoopsAvailable() {
  static const bool available =
      platform::WidestCpuIsa() == platform::CpuIsa::kAvx512;
  return available;
}

bool OwnConvLoopsFuse(const operators::FusedActivation& activation) {
  avx512::Act act;
  return avx512::ActOf(activation, &act);
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
