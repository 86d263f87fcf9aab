// Values a CUDA kernel of kernels/cuda/plain must know on the host: an
// axis, slice bounds or output sizes given as tensors (AxisTensor,
// StartsTensor, SizeTensor, ...). The executor copies every input to the
// kernel's place before it runs, so these small tensors usually arrive on
// the device; they are copied back here with a synchronous copy, the only
// place these kernels wait for the stream. Tensors already in host memory
// are used as they are. Private to kernels/cuda/plain.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/operator.h"
#include "framework/rebound_inputs_context.h"
#include "framework/variable.h"
#include "kernels/cuda/cuda_helper.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Queues a copy of device tensor `t` into host tensor `*host` on the
/// stream; the caller synchronizes before reading it.
inline void QueueCopyToHost(const CUDADeviceContext& dev,
                            const framework::Tensor& t,
                            framework::Tensor* host) {
  host->Resize(t.dims());
  host->set_lod(t.lod());
  void* dst = host->mutable_data(platform::CPUPlace{}, t.dtype());
  const size_t bytes = t.memory_size();
  if (bytes > 0) {
    PDLITE_CUDA_CHECK(cudaMemcpyAsync(dst, t.raw_data(), bytes,
                                      cudaMemcpyDeviceToHost, dev.stream()));
  }
}

/// `t` itself when its memory is host memory, else a host copy of it.
/// Waits for the stream in the second case: the values decide how the
/// kernel is launched, so they cannot stay on the device.
inline framework::Tensor ToHost(const CUDADeviceContext& dev,
                                const framework::Tensor& t) {
  if (t.place().is_host()) return t;
  framework::Tensor host;
  QueueCopyToHost(dev, t, &host);
  PDLITE_CUDA_CHECK(cudaStreamSynchronize(dev.stream()));
  return host;
}

/// The values of an int32/int64 tensor on either side, widened to int64
/// (operators::IntTensorValues on its host copy: same checks, same errors).
inline std::vector<int64_t> HostIntValues(const CUDADeviceContext& dev,
                                          const framework::Tensor& t,
                                          const std::string& op,
                                          const std::string& slot) {
  return operators::IntTensorValues(ToHost(dev, t), op, slot);
}

/// The kernel's ExecutionContext with the tensors of some input slots
/// replaced by host copies, so the helpers shared with the CPU kernels and
/// shape inference (ComputeSliceBounds, ResolveInterp, ...) can read them
/// and compute exactly what they computed there. Every other slot is
/// bound as in the original context (device tensors; only their dims may
/// be read through it). One synchronization covers all copies.
class HostInputsContext : public framework::ReboundInputsContext {
 public:
  HostInputsContext(const framework::ExecutionContext& ctx,
                    std::initializer_list<const char*> host_slots)
      : ReboundInputsContext(
            ctx,
            host_slots,
            [&ctx](const std::string&,
                   size_t,
                   const framework::Tensor& t,
                   framework::Tensor* copy) {
              if (!t.IsInitialized() || t.place().is_host()) return false;
              QueueCopyToHost(ctx.device_context<CUDADeviceContext>(), t, copy);
              return true;
            }) {
    if (rebound() > 0) {
      PDLITE_CUDA_CHECK(cudaStreamSynchronize(
          ctx.device_context<CUDADeviceContext>().stream()));
    }
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
