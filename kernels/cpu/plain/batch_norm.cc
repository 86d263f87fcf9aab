// batch_norm on CPU (spec §4.1): Y = X * a[c] + b[c] with
// a = Scale / sqrt(Variance + epsilon) and b = Bias - Mean * a.
#include <cmath>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class BatchNormKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* scale = ctx.Input<framework::Tensor>("Scale");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* y = ctx.Output<framework::Tensor>("Y");
    const auto& dims = x->dims();
    const auto layout = ctx.Attr<std::string>("data_layout");
    const bool channel_last = layout == "NHWC" || layout == "NDHWC";
    const int64_t c = channel_last ? dims.back() : dims[1];
    // NCHW: [outer = N][c][inner = spatial]; NHWC: [outer = N * spatial][c].
    const int64_t outer =
        channel_last ? x->numel() / std::max<int64_t>(c, 1) : dims[0];
    const int64_t inner =
        channel_last
            ? 1
            : framework::Product(dims, 2, static_cast<int>(dims.size()));
    T* out = y->mutable_data<T>(ctx.GetPlace());
    if (x->numel() == 0) return;
    const T* in = x->data<T>();
    const T epsilon = static_cast<T>(ctx.Attr<float>("epsilon"));

    std::vector<T> mean(c), variance(c);
    const bool running_stats = (ctx.Attr<bool>("is_test") &&
                                !ctx.Attr<bool>("trainable_statistics")) ||
                               ctx.Attr<bool>("use_global_stats");
    if (running_stats) {
      const T* m = ctx.Input<framework::Tensor>("Mean")->data<T>();
      const T* v = ctx.Input<framework::Tensor>("Variance")->data<T>();
      mean.assign(m, m + c);
      variance.assign(v, v + c);
    } else {
      // Training mode normalizes with the batch's own (biased) statistics;
      // the running statistics are left untouched.
      BatchStatistics(in, outer, c, inner, channel_last, &mean, &variance);
    }

    std::vector<T> a(c), b(c);
    const T* s = scale->data<T>();
    const T* bi = bias->data<T>();
    for (int64_t ch = 0; ch < c; ++ch) {
      a[ch] = s[ch] / std::sqrt(variance[ch] + epsilon);
      b[ch] = bi[ch] - mean[ch] * a[ch];
    }

    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if (channel_last) {
      dev.ParallelFor(outer, 2.0 * c, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* src = in + r * c;
          T* dst = out + r * c;
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] = src[ch] * a[ch] + b[ch];
        }
      });
    } else {
      dev.ParallelFor(outer * c, 2.0 * inner, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const T av = a[plane % c];
          const T bv = b[plane % c];
          const T* src = in + plane * inner;
          T* dst = out + plane * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] = src[i] * av + bv;
        }
      });
    }
  }

 private:
  static void BatchStatistics(const T* in,
                              int64_t outer,
                              int64_t c,
                              int64_t inner,
                              bool channel_last,
                              std::vector<T>* mean,
                              std::vector<T>* variance) {
    auto at = [&](int64_t o, int64_t ch, int64_t i) {
      return channel_last ? in[o * c + ch] : in[(o * c + ch) * inner + i];
    };
    const double count = static_cast<double>(outer * inner);
    for (int64_t ch = 0; ch < c; ++ch) {
      double sum = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) sum += at(o, ch, i);
      }
      const double mu = sum / count;
      double sq = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const double d = at(o, ch, i) - mu;
          sq += d * d;
        }
      }
      (*mean)[ch] = static_cast<T>(mu);
      (*variance)[ch] = static_cast<T>(sq / count);
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(batch_norm,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::BatchNormKernel<float>,
                   paddle_lite::kernels::BatchNormKernel<double>);
