// Test-only helpers of the conv2d and depthwise_conv2d tests: a naive
// direct convolution written from the spec formula (§2.1, §2.2), layout
// converters and a runner that feeds one case through the op.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

/// One convolution case. Input dims are always given as NCHW; NHWC cases
/// are transposed before feeding.
struct ConvCase {
  int64_t n = 1, c = 3, h = 5, w = 5;
  int64_t m = 4, kh = 3, kw = 3;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  int groups = 1;
  std::string padding_algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
  bool bias = false;
};

/// [N, C, H, W] <-> [N, H, W, C] for a tensor given by its NCHW dims.
template <typename T>
std::vector<T> NchwToNhwc(
    const std::vector<T>& x, int64_t n, int64_t c, int64_t h, int64_t w) {
  std::vector<T> y(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < h * w; ++p)
        y[(i * h * w + p) * c + ch] = x[(i * c + ch) * h * w + p];
  return y;
}

/// The expected output (NCHW) and its dims, computed tap by tap.
template <typename T>
std::vector<T> NaiveConv(const ConvCase& k,
                         const std::vector<T>& in,
                         const std::vector<T>& filter,
                         const std::vector<T>& bias,
                         int64_t* oh_out,
                         int64_t* ow_out) {
  int64_t pads[4];  // top, bottom, left, right
  if (k.paddings.size() == 2) {
    pads[0] = pads[1] = k.paddings[0];
    pads[2] = pads[3] = k.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pads[i] = k.paddings[i];
  }
  int64_t dh = k.dilations[0], dw = k.dilations[1];
  const int64_t in_hw[2] = {k.h, k.w};
  const int64_t kk[2] = {k.kh, k.kw};
  for (int d = 0; d < 2; ++d) {
    const int64_t s = k.strides[d];
    if (k.padding_algorithm == "VALID") {
      pads[2 * d] = pads[2 * d + 1] = 0;
    } else if (k.padding_algorithm == "SAME") {
      const int64_t out = (in_hw[d] + s - 1) / s;
      const int64_t sum =
          std::max<int64_t>((out - 1) * s + kk[d] - in_hw[d], 0);
      pads[2 * d] = sum / 2;
      pads[2 * d + 1] = sum - sum / 2;
    }
  }
  if (k.padding_algorithm == "SAME") dh = dw = 1;
  const int64_t sh = k.strides[0], sw = k.strides[1];
  const int64_t oh = (k.h + pads[0] + pads[1] - (dh * (k.kh - 1) + 1)) / sh + 1;
  const int64_t ow = (k.w + pads[2] + pads[3] - (dw * (k.kw - 1) + 1)) / sw + 1;
  *oh_out = oh;
  *ow_out = ow;
  const int64_t cg = k.c / k.groups, mg = k.m / k.groups;
  std::vector<T> out(k.n * k.m * oh * ow);
  for (int64_t b = 0; b < k.n; ++b)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = bias.empty() ? 0.0 : bias[m];
          const int64_t g = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t iy = y * sh - pads[0] + i * dh;
                const int64_t ix = x * sw - pads[2] + j * dw;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
                acc +=
                    double(in[((b * k.c + g * cg + c) * k.h + iy) * k.w + ix]) *
                    filter[((m * cg + c) * k.kh + i) * k.kw + j];
              }
          out[((b * k.m + m) * oh + y) * ow + x] = static_cast<T>(acc);
        }
  return out;
}

/// Runs `op_type` on a random instance of `k` with `threads` threads and
/// compares with NaiveConv.
template <typename T>
void CheckConvCase(const std::string& op_type,
                   const ConvCase& k,
                   int threads = 1,
                   uint32_t seed = 7) {
  SCOPED_TRACE(op_type + " " + k.data_format + " " + k.padding_algorithm +
               " groups " + std::to_string(k.groups) + " threads " +
               std::to_string(threads));
  const bool nhwc = k.data_format == "NHWC";
  auto in = ToVector<T>(RandomTensor<T>({k.n, k.c, k.h, k.w}, -1, 1, seed));
  auto filter = ToVector<T>(
      RandomTensor<T>({k.m, k.c / k.groups, k.kh, k.kw}, -1, 1, seed + 1));
  std::vector<T> bias;
  if (k.bias) bias = ToVector<T>(RandomTensor<T>({k.m}, -1, 1, seed + 2));
  int64_t oh = 0, ow = 0;
  auto expected = NaiveConv(k, in, filter, bias, &oh, &ow);

  const auto dtype = framework::ToDataType<T>();
  OpTester t(op_type);
  if (nhwc) {
    t.Input("Input", MakeTensor<T>({k.n, k.h, k.w, k.c},
                                   NchwToNhwc(in, k.n, k.c, k.h, k.w)));
  } else {
    t.Input("Input", MakeTensor<T>({k.n, k.c, k.h, k.w}, in));
  }
  t.Input("Filter", MakeTensor<T>({k.m, k.c / k.groups, k.kh, k.kw}, filter));
  if (k.bias) t.Input("Bias", MakeTensor<T>({k.m}, bias));
  t.Output("Output", dtype)
      .Attr("strides", k.strides)
      .Attr("paddings", k.paddings)
      .Attr("dilations", k.dilations)
      .Attr("groups", k.groups)
      .Attr("padding_algorithm", k.padding_algorithm)
      .Attr("data_format", k.data_format);
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-10;
  if (nhwc) {
    ExpectTensorNear(t.GetOutput("Output"),
                     MakeTensor<T>({k.n, oh, ow, k.m},
                                   NchwToNhwc(expected, k.n, k.m, oh, ow)),
                     tol, tol);
  } else {
    ExpectTensorNear(t.GetOutput("Output"),
                     MakeTensor<T>({k.n, k.m, oh, ow}, expected), tol, tol);
  }
}

}  // namespace testing
}  // namespace paddle_lite
