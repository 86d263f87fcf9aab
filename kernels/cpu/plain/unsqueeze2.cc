// unsqueeze2 on CPU: Out shares X's buffer under the inferred dims.
#include "kernels/cpu/plain/share_data_kernel.h"

REGISTER_OP_KERNEL(unsqueeze2, PLAIN, CPUPlace, PDLITE_SHARE_DATA_KERNELS);
