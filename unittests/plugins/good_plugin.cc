// A well-formed plugin: a new op and its kernel.
#include "framework/plugin.h"
#include "plugin_test_kernel.h"

PDLITE_PLUGIN(good_plugin);

REGISTER_OPERATOR(plugin_test_double,
                  paddle_lite::operators::UnaryOp,
                  plugin_test::DoubleOpMaker);
REGISTER_OP_KERNEL(plugin_test_double,
                   PLAIN,
                   CPUPlace,
                   plugin_test::DoubleKernel<float>);
