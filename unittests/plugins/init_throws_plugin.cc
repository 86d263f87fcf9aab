// Its kernels register fine, but its init function throws an exception of
// its own (not the runtime's): the kernels must be taken back all the same.
#include <stdexcept>

#include "framework/plugin.h"
#include "plugin_test_kernel.h"

PDLITE_PLUGIN(init_throws_plugin);

REGISTER_OP_KERNEL(relu, INITTHROWS, CPUPlace,
                   plugin_test::DoubleKernel<float>);

PDLITE_PLUGIN_INIT() { throw std::runtime_error("the device is missing"); }
