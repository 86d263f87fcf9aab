// relu for float under a library of its own, "MYLIB": a kernel for an op
// the core already has. A predictor that lists MYLIB in
// Config::SetKernelLibraries (or `pdlite --libraries MYLIB`) chooses it
// over the built-in ones; every other predictor keeps the core's kernels.
// The library name is interned when the plugin registers, so nothing in
// the core names it.
#include <algorithm>
#include <atomic>

#include "framework/kernel_registry.h"
#include "framework/plugin.h"
#include "platform/device_context.h"

namespace custom_kernel {

namespace fw = paddle_lite::framework;

std::atomic<int64_t> g_calls{0};

class ReluMylibKernel : public fw::OpKernel<float> {
 public:
  void Compute(const fw::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<fw::Tensor>("X");
    auto* out = ctx.Output<fw::Tensor>("Out");
    const float* in = x->data<float>();
    float* o = out->mutable_data<float>(ctx.GetPlace());
    // Blocks of 4096 elements per task: long enough to amortize the
    // thread hand-off, and a branch-free body the compiler vectorizes.
    constexpr int64_t kBlock = 4096;
    const int64_t n = x->numel();
    ctx.device_context<paddle_lite::platform::CPUDeviceContext>().ParallelFor(
        (n + kBlock - 1) / kBlock, /*cost_per_unit=*/kBlock,
        [&](int64_t begin, int64_t end) {
          const int64_t stop = std::min(end * kBlock, n);
          for (int64_t i = begin * kBlock; i < stop; ++i) {
            o[i] = std::max(in[i], 0.0f);
          }
        });
    ++g_calls;
  }
};

}  // namespace custom_kernel

PDLITE_PLUGIN(custom_kernel);

REGISTER_OP_KERNEL(relu, MYLIB, CPUPlace, custom_kernel::ReluMylibKernel);

// Read by the test through dlsym: how often the kernel ran.
extern "C" __attribute__((visibility("default"))) int64_t
custom_kernel_relu_calls() {
  return custom_kernel::g_calls.load();
}
