// flatten_contiguous_range on CPU: Out shares X's buffer under the inferred
// dims.
#include "kernels/cpu/plain/share_data_kernel.h"

REGISTER_OP_KERNEL(flatten_contiguous_range, PLAIN, CPUPlace, PDLITE_SHARE_DATA_KERNELS);
