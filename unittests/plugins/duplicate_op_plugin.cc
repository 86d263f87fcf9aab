// Defines op relu a second time (the core has it), next to a relu kernel
// under a library of its own: refused, the kernel not kept either.
#include "framework/plugin.h"
#include "plugin_test_kernel.h"

PDLITE_PLUGIN(duplicate_op_plugin);

REGISTER_OPERATOR(relu,
                  paddle_lite::operators::UnaryOp,
                  plugin_test::DoubleOpMaker);
REGISTER_OP_KERNEL(relu,
                   PLUGINTEST,
                   CPUPlace,
                   plugin_test::DoubleKernel<float>);
