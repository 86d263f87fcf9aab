// Its kernels register fine, but its init function fails (the CPU already
// has an allocator): the kernels must be taken back.
#include "framework/plugin.h"
#include "platform/allocator.h"
#include "plugin_test_kernel.h"

PDLITE_PLUGIN(init_fails_plugin);

REGISTER_OP_KERNEL(relu, INITFAILS, CPUPlace, plugin_test::DoubleKernel<float>);

PDLITE_PLUGIN_INIT() {
  paddle_lite::platform::RegisterAllocatorFactory(
      "cpu", [](const paddle_lite::platform::Place&) {
        return static_cast<paddle_lite::platform::Allocator*>(nullptr);
      });
}
