// depthwise_conv2d on cuDNN: the same grouped convolution as conv2d (cuDNN
// picks its depthwise kernels for groups == channels).
#include "kernels/cuda/cudnn/conv_util.h"

REGISTER_OP_KERNEL(depthwise_conv2d,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ConvCudnnKernel<float>);
