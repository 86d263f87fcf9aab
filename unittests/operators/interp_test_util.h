// Test-only helpers of the nearest_interp_v2 and bilinear_interp_v2 tests:
// a naive 2-D resize written from the formulas of spec §12 (tap by tap, in
// Paddle's order) and a runner that compares the op with it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "unittests/operators/conv_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

/// One 2-D resize case; input dims are NCHW, NHWC cases are transposed.
struct ResizeCase {
  int64_t n = 1, c = 2, h = 5, w = 7;
  int64_t out_h = 9, out_w = 4;
  std::vector<float> scale;  // non-empty: passed as the scale attribute
  bool align_corners = false;
  int align_mode = 1;
  std::string data_layout = "NCHW";
};

inline float NaiveRatio(int64_t in, int64_t out, float scale, bool align) {
  if (out <= 1) return 0.f;
  if (align) return static_cast<float>(in - 1) / (out - 1);
  return scale > 0 ? static_cast<float>(1. / scale)
                   : static_cast<float>(in) / out;
}

/// Expected NCHW output of `method` ("nearest" or "bilinear"); `scale_h`
/// and `scale_w` <= 0 when the size did not come from a scale.
template <typename T>
std::vector<T> NaiveResize(const std::string& method,
                           const std::vector<T>& x,
                           int64_t n,
                           int64_t c,
                           int64_t in_h,
                           int64_t in_w,
                           int64_t out_h,
                           int64_t out_w,
                           float scale_h,
                           float scale_w,
                           bool align_corners,
                           int align_mode) {
  std::vector<T> out(n * c * out_h * out_w);
  if (in_h == out_h && in_w == out_w) return x;
  const float rh = NaiveRatio(in_h, out_h, scale_h, align_corners);
  const float rw = NaiveRatio(in_w, out_w, scale_w, align_corners);
  const bool half = align_mode == 0 && !align_corners;
  for (int64_t p = 0; p < n * c; ++p) {
    const T* src = x.data() + p * in_h * in_w;
    T* dst = out.data() + p * out_h * out_w;
    for (int64_t i = 0; i < out_h; ++i) {
      for (int64_t j = 0; j < out_w; ++j) {
        if (method == "nearest") {
          int64_t y = align_corners ? static_cast<int64_t>(rh * i + 0.5)
                                    : static_cast<int64_t>(rh * i);
          int64_t xx = align_corners ? static_cast<int64_t>(rw * j + 0.5)
                                     : static_cast<int64_t>(rw * j);
          dst[i * out_w + j] = src[y * in_w + xx];
          continue;
        }
        // Paddle's BilinearInterpolation: north/south, west/east taps.
        int y_n = half ? static_cast<int>(rh * (i + 0.5) - 0.5)
                       : static_cast<int>(rh * i);
        y_n = std::max(y_n, 0);
        const int y_s = std::min<int>(y_n + 1, in_h - 1);
        float sy = std::max(rh * (i + 0.5) - 0.5, 0.0);
        const float d_n = half ? sy - y_n : rh * i - y_n;
        const float d_s = 1.f - d_n;
        int x_w = half ? static_cast<int>(rw * (j + 0.5) - 0.5)
                       : static_cast<int>(rw * j);
        x_w = std::max(x_w, 0);
        const int x_e = std::min<int>(x_w + 1, in_w - 1);
        float sx = std::max(rw * (j + 0.5) - 0.5, 0.0);
        const float d_w = half ? sx - x_w : rw * j - x_w;
        const float d_e = 1.f - d_w;
        dst[i * out_w + j] = static_cast<T>(src[y_n * in_w + x_w] * d_s * d_e +
                                            src[y_s * in_w + x_w] * d_n * d_e +
                                            src[y_n * in_w + x_e] * d_s * d_w +
                                            src[y_s * in_w + x_e] * d_n * d_w);
      }
    }
  }
  return out;
}

/// Runs `op_type` on a random instance of `k` (size from out_h/out_w, or
/// from the scale attribute when set) and compares with NaiveResize.
template <typename T>
void CheckResizeCase(const std::string& op_type,
                     const std::string& method,
                     const ResizeCase& k,
                     int threads = 1) {
  SCOPED_TRACE(op_type + " " + k.data_layout + " " + std::to_string(k.h) + "x" +
               std::to_string(k.w) + " align_corners " +
               std::to_string(k.align_corners) + " align_mode " +
               std::to_string(k.align_mode) + " threads " +
               std::to_string(threads));
  auto x = ToVector<T>(RandomTensor<T>({k.n, k.c, k.h, k.w}, -10, 10, 11));
  int64_t oh = k.out_h, ow = k.out_w;
  float sh = -1, sw = -1;
  if (k.scale.size() == 2 && k.scale[0] > 0 && k.scale[1] > 0) {
    sh = k.scale[0];
    sw = k.scale[1];
    oh = static_cast<int64_t>(k.h * sh);
    ow = static_cast<int64_t>(k.w * sw);
  }
  auto expected = NaiveResize<T>(method, x, k.n, k.c, k.h, k.w, oh, ow, sh, sw,
                                 k.align_corners, k.align_mode);
  const bool nhwc = k.data_layout == "NHWC";
  OpTester t(op_type);
  t.Input("X", nhwc ? MakeTensor<T>({k.n, k.h, k.w, k.c},
                                    NchwToNhwc(x, k.n, k.c, k.h, k.w))
                    : MakeTensor<T>({k.n, k.c, k.h, k.w}, x))
      .Output("Out", framework::ToDataType<T>())
      .Attr("out_h", static_cast<int>(k.out_h))
      .Attr("out_w", static_cast<int>(k.out_w))
      .Attr("align_corners", k.align_corners)
      .Attr("align_mode", k.align_mode)
      .Attr("data_layout", k.data_layout);
  if (!k.scale.empty()) t.Attr("scale", k.scale);
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = sizeof(T) == 8 ? 1e-6 : 1e-4;
  ExpectTensorNear(t.GetOutput("Out"),
                   nhwc ? MakeTensor<T>({k.n, oh, ow, k.c},
                                        NchwToNhwc(expected, k.n, k.c, oh, ow))
                        : MakeTensor<T>({k.n, k.c, oh, ow}, expected),
                   tol, tol);
}

/// Resize cases covering up/down sampling, odd sizes, 1-pixel outputs,
/// both layouts and every align_corners / align_mode pair.
inline std::vector<ResizeCase> ResizeCases() {
  std::vector<ResizeCase> cases;
  for (bool align : {false, true}) {
    for (int mode : {0, 1}) {
      for (const char* layout : {"NCHW", "NHWC"}) {
        ResizeCase k;
        k.align_corners = align;
        k.align_mode = mode;
        k.data_layout = layout;
        cases.push_back(k);  // up in H, down in W
        k.h = 13;
        k.w = 3;
        k.out_h = 5;
        k.out_w = 127;
        cases.push_back(k);  // down in H, up a lot in W
        k.out_h = 1;
        k.out_w = 1;
        cases.push_back(k);  // 1x1 output: ratio 0
        k.h = 1;
        k.w = 1;
        k.out_h = 3;
        k.out_w = 2;
        cases.push_back(k);  // from one pixel
        k.h = 6;
        k.w = 8;
        k.scale = {1.5f, 0.5f};
        cases.push_back(k);  // scale attribute beats out_h/out_w
        k.n = 2;
        k.c = 3;
        k.scale = {2.f, 2.f};
        cases.push_back(k);
      }
    }
  }
  return cases;
}

}  // namespace testing
}  // namespace paddle_lite
