// lookup_table on the CUDA place (see lookup_table_util.cuh).
#include "kernels/cuda/plain/lookup_table_util.cuh"

REGISTER_OP_KERNEL(lookup_table,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::LookupTableCUDAKernel<float>);
