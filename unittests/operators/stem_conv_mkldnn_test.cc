// The MKLDNN kernel's own stem convolution (kernels/cpu/mkldnn/
// stem_conv_util.h): its loops against a direct loop (1 to 4 input
// channels, 1 to 16 output channels, widths on each side of the tiles,
// 1x1, 3x3, 7x7 and uneven windows, strides 1 to 3, paddings none to
// wider than the window, 1x1 inputs, batches, every fused activation, no
// bias, 1 and 3 threads); and programs that route stems to it (NCHW
// images of a stream of shapes, feeding the other own loops and oneDNN)
// against PLAIN.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/stem_conv_util.h"
#include "platform/device_context.h"
#include "unittests/operators/mkldnn_test_util.h"
#include "unittests/operators/own_conv_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using kernels::mkldnn::OwnConvLoopsAvailable;
using kernels::mkldnn::PackedStemFilterSize;
using kernels::mkldnn::PackStemFilter;
using kernels::mkldnn::RunStemConv;
using kernels::mkldnn::StemConv;

struct Case {
  int64_t batch = 1, in_channels = 3, out_channels = 8, in_h = 9, in_w = 40;
  int64_t kernel_h = 3, kernel_w = 3, stride_h = 2, stride_w = 2;
  int64_t pad_top = 1, pad_bottom = 1, pad_left = 1, pad_right = 1;
  bool bias = true;
  operators::FusedActivation act;
};

void Check(const Case& c, int threads) {
  const int64_t out_h =
      (c.in_h + c.pad_top + c.pad_bottom - c.kernel_h) / c.stride_h + 1;
  const int64_t out_w =
      (c.in_w + c.pad_left + c.pad_right - c.kernel_w) / c.stride_w + 1;
  SCOPED_TRACE(::testing::Message()
               << "batch " << c.batch << " channels " << c.in_channels << "->"
               << c.out_channels << " in " << c.in_h << "x" << c.in_w
               << " window " << c.kernel_h << "x" << c.kernel_w << " stride "
               << c.stride_h << "x" << c.stride_w << " pads " << c.pad_top
               << "," << c.pad_bottom << "," << c.pad_left << "," << c.pad_right
               << " act '" << c.act.type << "' bias " << c.bias << " threads "
               << threads);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  const int64_t taps = c.in_channels * c.kernel_h * c.kernel_w;
  std::vector<float> in(c.batch * c.in_channels * c.in_h * c.in_w),
      filter(c.out_channels * taps), bias(c.out_channels);
  for (size_t i = 0; i < in.size(); ++i) in[i] = PatternValue(i, 1);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = PatternValue(i, 2);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = PatternValue(i, 3);
  std::vector<float> want(c.batch * out_h * out_w * c.out_channels);
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t y = 0; y < out_h; ++y) {
      for (int64_t x = 0; x < out_w; ++x) {
        for (int64_t o = 0; o < c.out_channels; ++o) {
          double sum = c.bias ? bias[o] : 0.0;
          for (int64_t ch = 0; ch < c.in_channels; ++ch) {
            for (int64_t i = 0; i < c.kernel_h; ++i) {
              for (int64_t j = 0; j < c.kernel_w; ++j) {
                const int64_t iy = y * c.stride_h - c.pad_top + i;
                const int64_t ix = x * c.stride_w - c.pad_left + j;
                if (iy < 0 || iy >= c.in_h || ix < 0 || ix >= c.in_w) continue;
                sum +=
                    static_cast<double>(
                        in[((n * c.in_channels + ch) * c.in_h + iy) * c.in_w +
                           ix]) *
                    filter[((o * c.in_channels + ch) * c.kernel_h + i) *
                               c.kernel_w +
                           j];
              }
            }
          }
          want[((n * out_h + y) * out_w + x) * c.out_channels + o] =
              ReferenceActivate(c.act, static_cast<float>(sum));
        }
      }
    }
  }
  std::vector<float> packed(
      PackedStemFilterSize(c.in_channels, c.kernel_h, c.kernel_w));
  PackStemFilter(filter.data(), c.out_channels, c.in_channels, c.kernel_h,
                 c.kernel_w, packed.data());
  // NaN where nothing should be written past the end.
  std::vector<float> out(want.size() + 16,
                         std::numeric_limits<float>::quiet_NaN());
  platform::DeviceContextOptions options;
  options.num_threads = threads;
  platform::CPUDeviceContext dev(options);
  StemConv conv;
  conv.in = in.data();
  conv.packed_filter = packed.data();
  conv.bias = c.bias ? bias.data() : nullptr;
  conv.out = out.data();
  conv.batch = c.batch;
  conv.in_channels = c.in_channels;
  conv.out_channels = c.out_channels;
  conv.in_h = c.in_h;
  conv.in_w = c.in_w;
  conv.out_h = out_h;
  conv.out_w = out_w;
  conv.kernel_h = c.kernel_h;
  conv.kernel_w = c.kernel_w;
  conv.stride_h = c.stride_h;
  conv.stride_w = c.stride_w;
  conv.pad_top = c.pad_top;
  conv.pad_left = c.pad_left;
  conv.activation = c.act;
  RunStemConv(dev, conv);
  ExpectLoopOutput(out, want, c.out_channels);
}

TEST(StemConvMkldnn, MatchesDirectLoop) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (int64_t in_channels : {1, 3, 4}) {
    for (int64_t out_channels : {1, 8, 9, 12, 15, 16}) {
      for (int64_t in_w : {1, 5, 26, 61}) {
        Case c;
        c.in_channels = in_channels;
        c.out_channels = out_channels;
        c.in_w = in_w;
        Check(c, 1);
      }
    }
  }
}

TEST(StemConvMkldnn, WindowsStridesAndPaddings) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  const std::vector<TestWindow> windows = {
      {3, 3, 1, 1, 1, 1, 1, 1}, {3, 3, 2, 2, 0, 1, 0, 1},
      {7, 7, 2, 2, 3, 3, 3, 3}, {1, 1, 1, 1, 0, 0, 0, 0},
      {3, 5, 1, 3, 1, 1, 2, 2}, {3, 3, 1, 1, 4, 4, 4, 4},
      {5, 5, 2, 2, 0, 0, 3, 0}, {2, 2, 2, 2, 0, 0, 0, 0}};
  for (const TestWindow& w : windows) {
    for (auto hw :
         {std::pair<int64_t, int64_t>{1, 1}, {2, 3}, {7, 26}, {12, 49}}) {
      Case c;
      if (!SetTestWindow(w, hw.first, hw.second, &c)) continue;
      Check(c, 1);
      c.batch = 2;
      c.out_channels = 16;
      Check(c, 3);
    }
  }
}

TEST(StemConvMkldnn, EveryActivationAndNoBias) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (const auto& act : OwnLoopActivations()) {
    for (int threads : {1, 3}) {
      Case c;
      c.in_h = 10;
      c.in_w = 33;
      c.act = act;
      Check(c, threads);
      c.bias = false;
      Check(c, threads);
    }
  }
}

// Stems as the OCR models have them (3 -> 8, 3x3, stride 2, hard_swish,
// then a depthwise and a 1x1 on the own loops), one of 16 feeding a
// oneDNN 3x3 (which reads the channel-last output), and stems the kernel
// leaves to oneDNN (5 input channels, 24 outputs, dilation), over a stream
// of shapes, against PLAIN.
TEST(StemConvMkldnn, ProgramsMatchPlainOverAStreamOfShapes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  auto stem_w =
      b.AddParameter("stem_w", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 31));
  auto stem_b = b.AddParameter("stem_b", RandomTensor<float>({8}, -1, 1, 32));
  auto dw_w =
      b.AddParameter("dw_w", RandomTensor<float>({8, 1, 3, 3}, -1, 1, 33));
  auto pw_w =
      b.AddParameter("pw_w", RandomTensor<float>({16, 8, 1, 1}, -1, 1, 34));
  auto stem16_w =
      b.AddParameter("stem16_w", RandomTensor<float>({16, 3, 3, 3}, -1, 1, 35));
  auto conv_w =
      b.AddParameter("conv_w", RandomTensor<float>({32, 16, 3, 3}, -1, 1, 36));
  auto wide_w =
      b.AddParameter("wide_w", RandomTensor<float>({24, 3, 3, 3}, -1, 1, 37));
  auto dilated_w =
      b.AddParameter("dilated_w", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 38));
  auto stem = b.AddVar("stem");
  auto dw = b.AddVar("dw");
  auto pw = b.AddVar("pw");
  auto stem16 = b.AddVar("stem16");
  auto conv = b.AddVar("conv");
  auto wide = b.AddVar("wide");
  auto dilated = b.AddVar("dilated");
  b.AddOp("fused_conv2d",
          {{"Input", {x}}, {"Filter", {stem_w}}, {"Bias", {stem_b}}},
          {{"Output", {stem}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("hard_swish")}});
  b.AddOp("fused_conv2d", {{"Input", {stem}}, {"Filter", {dw_w}}},
          {{"Output", {dw}}},
          {{"paddings", std::vector<int>{1, 1}},
           {"groups", 8},
           {"fuse_activation", std::string("relu")}});
  b.AddOp("conv2d", {{"Input", {dw}}, {"Filter", {pw_w}}}, {{"Output", {pw}}});
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {stem16_w}}},
          {{"Output", {stem16}}}, {{"paddings", std::vector<int>{1, 1}}});
  b.AddOp("fused_conv2d", {{"Input", {stem16}}, {"Filter", {conv_w}}},
          {{"Output", {conv}}},
          {{"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("relu")}});
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {wide_w}}},
          {{"Output", {wide}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}}});
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {dilated_w}}},
          {{"Output", {dilated}}},
          {{"paddings", std::vector<int>{2, 2}},
           {"dilations", std::vector<int>{2, 2}}});
  b.AddOutput(stem);
  b.AddOutput(pw);
  b.AddOutput(conv);
  b.AddOutput(wide);
  b.AddOutput(dilated);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     {{1, 3, 48, 64},
                                      {1, 3, 48, 100},
                                      {1, 3, 48, 64},
                                      {2, 3, 7, 9},
                                      {1, 3, 1, 1},
                                      {1, 3, 33, 17},
                                      {1, 3, 48, 100}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
