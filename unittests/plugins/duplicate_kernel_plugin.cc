// Registers a new op and kernel, then a relu kernel under the key the core
// already has ({float32, cpu, AnyLayout, PLAIN}): the whole plugin must be
// refused, the new op and kernel included.
#include "framework/plugin.h"
#include "plugin_test_kernel.h"

PDLITE_PLUGIN(duplicate_kernel_plugin);

REGISTER_OPERATOR(plugin_test_dup_new_op,
                  paddle_lite::operators::UnaryOp,
                  plugin_test::DoubleOpMaker);
REGISTER_OP_KERNEL(plugin_test_dup_new_op,
                   PLAIN,
                   CPUPlace,
                   plugin_test::DoubleKernel<float>);
REGISTER_OP_KERNEL(relu, PLAIN, CPUPlace, plugin_test::DoubleKernel<float>);
