// squeeze2 on a CUDA place: a view. Out shares X's device buffer under the
// dims shape inference set; no copy, no launch.
#include "kernels/cpu/plain/share_data_kernel.h"

REGISTER_OP_KERNEL(squeeze2, PLAIN, CUDAPlace, PDLITE_SHARE_DATA_KERNELS);
