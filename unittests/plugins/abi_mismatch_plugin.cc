// Built with -DPDLITE_ABI_VERSION=999: stands for a plugin compiled against
// other headers than this runtime's. Loading it must be refused before any
// of its registrations take effect.
#include "framework/plugin.h"
#include "plugin_test_kernel.h"

static_assert(PDLITE_ABI_VERSION == 999, "build with -DPDLITE_ABI_VERSION=999");

PDLITE_PLUGIN(abi_mismatch_plugin);

REGISTER_OPERATOR(plugin_test_abi_op,
                  paddle_lite::operators::UnaryOp,
                  plugin_test::DoubleOpMaker);
REGISTER_OP_KERNEL(plugin_test_abi_op,
                   PLAIN,
                   CPUPlace,
                   plugin_test::DoubleKernel<float>);
