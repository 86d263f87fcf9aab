// The MKLDNN kernel's own Winograd 3x3 convolution (kernels/cpu/mkldnn/
// winograd_conv_util.h): its loops against a direct loop in double
// (channel counts on each side of the vectors and panels, images smaller
// than a tile and not multiples of it, paddings 0 to 2 and outputs cut
// short, every fused activation, no bias, wide input rows, batches, 1 and
// 3 threads); and programs whose 3x3 convolutions take it, against PLAIN.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/winograd_conv_util.h"
#include "platform/device_context.h"
#include "unittests/operators/mkldnn_test_util.h"
#include "unittests/operators/own_conv_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using kernels::mkldnn::OwnConvLoopsAvailable;

struct Case {
  int64_t batch = 1, in_h = 8, in_w = 8, in_channels = 32, out_channels = 16;
  int64_t pad_top = 1, pad_left = 1;
  int64_t pad_bottom = 1, pad_right = 1;  // set the output size
  int64_t in_stride = 0;                  // 0: in_channels
  bool bias = true;
  operators::FusedActivation act;
};

// Random-looking values in [-1, 1] that are not multiples of a power of
// two, so the transforms round as they do on real data.
float Value(int64_t i, int salt) {
  const uint32_t h = static_cast<uint32_t>(i * 2654435761u + salt * 40503u);
  return static_cast<float>((h >> 8) % 20001) / 10000.f - 1.f;
}

void Check(const Case& c, int threads) {
  const int64_t stride = c.in_stride != 0 ? c.in_stride : c.in_channels;
  const int64_t out_h = c.in_h + c.pad_top + c.pad_bottom - 2;
  const int64_t out_w = c.in_w + c.pad_left + c.pad_right - 2;
  SCOPED_TRACE(::testing::Message()
               << "batch " << c.batch << " in " << c.in_h << "x" << c.in_w
               << "x" << c.in_channels << " (row " << stride << ") out "
               << out_h << "x" << out_w << "x" << c.out_channels << " pads "
               << c.pad_top << "," << c.pad_left << " act '" << c.act.type
               << "' bias " << c.bias << " threads " << threads);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  std::vector<float> in(c.batch * c.in_h * c.in_w * stride),
      filter(c.out_channels * c.in_channels * 9), bias(c.out_channels);
  for (size_t i = 0; i < in.size(); ++i) in[i] = Value(i, 1);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = Value(i, 2);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = Value(i, 3);
  const int64_t pixels = c.batch * out_h * out_w;
  std::vector<float> want(pixels * c.out_channels);
  // What each sum's rounding may amount to: Winograd's transforms round
  // values larger than the result, so its error follows the sum of the
  // terms' magnitudes.
  std::vector<double> magnitude(want.size());
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t y = 0; y < out_h; ++y) {
      for (int64_t x = 0; x < out_w; ++x) {
        for (int64_t o = 0; o < c.out_channels; ++o) {
          double sum = c.bias ? bias[o] : 0.0;
          double size = std::fabs(sum);
          for (int64_t ky = 0; ky < 3; ++ky) {
            const int64_t iy = y - c.pad_top + ky;
            if (iy < 0 || iy >= c.in_h) continue;
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t ix = x - c.pad_left + kx;
              if (ix < 0 || ix >= c.in_w) continue;
              const float* pixel =
                  in.data() + ((n * c.in_h + iy) * c.in_w + ix) * stride;
              for (int64_t i = 0; i < c.in_channels; ++i) {
                const double term =
                    static_cast<double>(pixel[i]) *
                    filter[(o * c.in_channels + i) * 9 + ky * 3 + kx];
                sum += term;
                size += std::fabs(term);
              }
            }
          }
          const int64_t at = ((n * out_h + y) * out_w + x) * c.out_channels + o;
          want[at] = ReferenceActivate(c.act, static_cast<float>(sum));
          magnitude[at] = size;
        }
      }
    }
  }
  std::vector<float> storage(
      kernels::mkldnn::PackedWinogradFilterSize(c.in_channels, c.out_channels) +
      16);
  float* packed = storage.data();
  while (reinterpret_cast<uintptr_t>(packed) % 64 != 0) ++packed;
  kernels::mkldnn::PackWinogradFilter(filter.data(), c.in_channels,
                                      c.out_channels, packed);
  std::vector<float> out(want.size() + 16,
                         std::numeric_limits<float>::quiet_NaN());
  kernels::mkldnn::WinogradConv conv;
  conv.in = in.data();
  conv.in_stride = stride;
  conv.packed_filter = packed;
  conv.bias = c.bias ? bias.data() : nullptr;
  conv.out = out.data();
  conv.batch = c.batch;
  conv.in_h = c.in_h;
  conv.in_w = c.in_w;
  conv.out_h = out_h;
  conv.out_w = out_w;
  conv.pad_top = c.pad_top;
  conv.pad_left = c.pad_left;
  conv.in_channels = c.in_channels;
  conv.out_channels = c.out_channels;
  conv.activation = c.act;
  platform::DeviceContextOptions options;
  options.num_threads = threads;
  platform::CPUDeviceContext dev(options);
  std::vector<float> scratch(
      kernels::mkldnn::WinogradScratchBytes(conv, threads) / sizeof(float) +
      16);
  float* aligned = scratch.data();
  while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++aligned;
  kernels::mkldnn::RunWinogradConv(dev, conv, aligned);
  for (size_t i = 0; i < want.size(); ++i) {
    // F(4x4, 3x3) loses a few bits more than a direct sum in float (up to
    // 5e-6 of the terms' magnitudes here, where a bug is off by about
    // 1).
    ASSERT_NEAR(out[i], want[i], 1e-5 * magnitude[i] + 1e-6)
        << "pixel " << i / c.out_channels << " channel " << i % c.out_channels;
  }
  for (size_t i = want.size(); i < out.size(); ++i) {
    ASSERT_TRUE(std::isnan(out[i])) << "written past the end at " << i;
  }
}

TEST(WinogradConvMkldnn, MatchesDirectLoop) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (int64_t in_channels : {1, 3, 8, 17, 32, 96}) {
    for (int64_t out_channels : {1, 8, 16, 24, 40, 70}) {
      Case c;
      c.in_channels = in_channels;
      c.out_channels = out_channels;
      c.in_h = 9;
      c.in_w = 11;
      Check(c, 1);
    }
  }
}

TEST(WinogradConvMkldnn, ImageSizesPaddingsAndBatches) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (int64_t h : {1, 2, 3, 4, 5, 8, 13}) {
    for (int64_t w : {1, 3, 4, 6, 7, 17}) {
      for (int64_t pad : {0, 1, 2}) {
        Case c;
        c.in_h = h;
        c.in_w = w;
        c.pad_top = c.pad_bottom = c.pad_left = c.pad_right = pad;
        if (h + 2 * pad < 3 || w + 2 * pad < 3) continue;
        c.in_channels = 20;
        c.out_channels = 12;
        Check(c, 1);
      }
    }
  }
  // Outputs cut short (bottom and right paddings smaller than the top and
  // left ones), a batch, wide rows, many tiles across 3 threads.
  Case c;
  c.in_h = 14;
  c.in_w = 10;
  c.pad_top = 2;
  c.pad_left = 1;
  c.pad_bottom = 0;
  c.pad_right = 0;
  Check(c, 1);
  c.batch = 3;
  c.in_stride = 40;
  Check(c, 3);
  Case big;
  big.batch = 2;
  big.in_h = 37;
  big.in_w = 45;
  big.in_channels = 48;
  big.out_channels = 24;
  Check(big, 3);
}

TEST(WinogradConvMkldnn, EveryActivationAndNoBias) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (const auto& act : OwnLoopActivations()) {
    Case c;
    c.in_h = 10;
    c.in_w = 7;
    c.in_channels = 33;
    c.out_channels = 20;
    c.act = act;
    Check(c, 2);
    c.bias = false;
    Check(c, 1);
  }
}

// 3x3 convolutions on channel-last data from 1x1 ones, with and without a
// fused activation, padding 1 and 0, over a stream of shapes: what runs on
// RunWinogradConv where it is preferred (AVX2), and oneDNN elsewhere.
TEST(WinogradConvMkldnn, ProgramsMatchPlainOverAStreamOfShapes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  auto stem_w =
      b.AddParameter("stem_w", RandomTensor<float>({16, 3, 3, 3}, -1, 1, 41));
  auto expand_w = b.AddParameter(
      "expand_w", RandomTensor<float>({40, 16, 1, 1}, -0.5, 0.5, 42));
  auto three_w = b.AddParameter(
      "three_w", RandomTensor<float>({32, 40, 3, 3}, -0.2, 0.2, 43));
  auto three_b =
      b.AddParameter("three_b", RandomTensor<float>({32}, -1, 1, 44));
  auto valid_w = b.AddParameter(
      "valid_w", RandomTensor<float>({16, 32, 3, 3}, -0.2, 0.2, 45));
  auto stem = b.AddVar("stem");
  auto expanded = b.AddVar("expanded");
  auto three = b.AddVar("three");
  auto valid = b.AddVar("valid");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {stem_w}}},
          {{"Output", {stem}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}}});
  b.AddOp("conv2d", {{"Input", {stem}}, {"Filter", {expand_w}}},
          {{"Output", {expanded}}});
  b.AddOp("fused_conv2d",
          {{"Input", {expanded}}, {"Filter", {three_w}}, {"Bias", {three_b}}},
          {{"Output", {three}}},
          {{"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("relu")}});
  b.AddOp("conv2d", {{"Input", {three}}, {"Filter", {valid_w}}},
          {{"Output", {valid}}}, {{"paddings", std::vector<int>{0, 0}}});
  b.AddOutput(three);
  b.AddOutput(valid);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     {{1, 3, 32, 48},
                                      {2, 3, 13, 17},
                                      {1, 3, 32, 48},
                                      {1, 3, 7, 7},
                                      {1, 3, 66, 30}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
