#include "kernels/cpu/plain/lookup_table_kernel.h"

REGISTER_OP_KERNEL(lookup_table,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::LookupTableKernel<float>,
                   paddle_lite::kernels::LookupTableKernel<double>);
