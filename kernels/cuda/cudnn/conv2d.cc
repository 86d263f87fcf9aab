// conv2d on cuDNN: the convolution, then the Bias (fused graphs) in one
// epilogue pass. The shared body is RunConv2D in conv_util.cc.
#include "kernels/cuda/cudnn/conv_util.h"

REGISTER_OP_KERNEL(conv2d,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ConvCudnnKernel<float>);
