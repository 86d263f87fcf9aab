// The MKLDNN kernel's own depthwise convolution (kernels/cpu/mkldnn/
// depthwise_conv_util.h): its loops against a direct loop (channel counts
// on each side of the 16-lane vectors and 64-channel blocks, widths on
// each side of the tiles, 3x3, 5x5 and uneven windows, strides 1 and 2,
// paddings none to wider than the window, 1x1 inputs, batches, every fused
// activation, no bias, input rows wider than their channels, 1 and 3
// threads); and programs that route depthwise convolutions to it
// (channel-last and 16-blocked inputs, a stream of shapes) against PLAIN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/depthwise_conv_util.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "platform/device_context.h"
#include "unittests/operators/mkldnn_test_util.h"
#include "unittests/operators/own_conv_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using kernels::mkldnn::DepthwiseConv;
using kernels::mkldnn::OwnConvLoopsAvailable;
using kernels::mkldnn::PackDepthwiseFilter;
using kernels::mkldnn::PackedDepthwiseFilterSize;
using kernels::mkldnn::RunDepthwiseConv;

struct Case {
  int64_t batch = 1, channels = 16, in_h = 9, in_w = 30;
  int64_t kernel_h = 3, kernel_w = 3, stride_h = 1, stride_w = 1;
  int64_t pad_top = 1, pad_bottom = 1, pad_left = 1, pad_right = 1;
  int64_t in_stride = 0;  // 0: channels
  bool bias = true;
  operators::FusedActivation act;
};

void Check(const Case& c, int threads) {
  const int64_t stride = c.in_stride != 0 ? c.in_stride : c.channels;
  const int64_t out_h =
      (c.in_h + c.pad_top + c.pad_bottom - c.kernel_h) / c.stride_h + 1;
  const int64_t out_w =
      (c.in_w + c.pad_left + c.pad_right - c.kernel_w) / c.stride_w + 1;
  SCOPED_TRACE(::testing::Message()
               << "batch " << c.batch << " channels " << c.channels << " (row "
               << stride << ") in " << c.in_h << "x" << c.in_w << " window "
               << c.kernel_h << "x" << c.kernel_w << " stride " << c.stride_h
               << "x" << c.stride_w << " pads " << c.pad_top << ","
               << c.pad_bottom << "," << c.pad_left << "," << c.pad_right
               << " act '" << c.act.type << "' bias " << c.bias << " threads "
               << threads);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  const int64_t taps = c.kernel_h * c.kernel_w;
  std::vector<float> in(c.batch * c.in_h * c.in_w * stride),
      filter(c.channels * taps), bias(c.channels);
  for (size_t i = 0; i < in.size(); ++i) in[i] = PatternValue(i, 1);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = PatternValue(i, 2);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = PatternValue(i, 3);
  std::vector<float> want(c.batch * out_h * out_w * c.channels);
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t y = 0; y < out_h; ++y) {
      for (int64_t x = 0; x < out_w; ++x) {
        for (int64_t ch = 0; ch < c.channels; ++ch) {
          double sum = c.bias ? bias[ch] : 0.0;
          for (int64_t i = 0; i < c.kernel_h; ++i) {
            for (int64_t j = 0; j < c.kernel_w; ++j) {
              const int64_t iy = y * c.stride_h - c.pad_top + i;
              const int64_t ix = x * c.stride_w - c.pad_left + j;
              if (iy < 0 || iy >= c.in_h || ix < 0 || ix >= c.in_w) continue;
              sum += static_cast<double>(
                         in[((n * c.in_h + iy) * c.in_w + ix) * stride + ch]) *
                     filter[ch * taps + i * c.kernel_w + j];
            }
          }
          want[((n * out_h + y) * out_w + x) * c.channels + ch] =
              ReferenceActivate(c.act, static_cast<float>(sum));
        }
      }
    }
  }
  std::vector<float> packed(
      PackedDepthwiseFilterSize(c.channels, c.kernel_h, c.kernel_w));
  PackDepthwiseFilter(filter.data(), c.channels, c.kernel_h, c.kernel_w,
                      packed.data());
  // NaN where nothing should be written past the end.
  std::vector<float> out(want.size() + 16,
                         std::numeric_limits<float>::quiet_NaN());
  platform::DeviceContextOptions options;
  options.num_threads = threads;
  platform::CPUDeviceContext dev(options);
  DepthwiseConv conv;
  conv.in = in.data();
  conv.in_stride = stride;
  conv.packed_filter = packed.data();
  conv.bias = c.bias ? bias.data() : nullptr;
  conv.out = out.data();
  conv.batch = c.batch;
  conv.channels = c.channels;
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
  RunDepthwiseConv(dev, conv);
  ExpectLoopOutput(out, want, c.channels);
}

TEST(DepthwiseConvMkldnn, MatchesDirectLoop) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (int64_t channels :
       {1, 8, 12, 16, 17, 24, 32, 36, 40, 64, 65, 100, 130}) {
    for (int64_t in_w : {1, 5, 13, 30, 61}) {
      Case c;
      c.channels = channels;
      c.in_w = in_w;
      Check(c, 1);
    }
  }
}

TEST(DepthwiseConvMkldnn, WindowsStridesAndPaddings) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  const std::vector<TestWindow> windows = {
      {3, 3, 1, 1, 1, 1, 1, 1}, {3, 3, 2, 2, 1, 1, 1, 1},
      {5, 5, 1, 1, 2, 2, 2, 2}, {5, 5, 2, 2, 2, 2, 2, 2},
      {3, 3, 1, 1, 0, 0, 0, 0}, {3, 3, 2, 2, 0, 1, 0, 1},
      {3, 5, 1, 2, 1, 1, 2, 2}, {1, 1, 1, 1, 0, 0, 0, 0},
      {3, 3, 1, 1, 4, 4, 4, 4}, {5, 5, 2, 2, 0, 0, 3, 0}};
  for (const TestWindow& w : windows) {
    for (auto hw :
         {std::pair<int64_t, int64_t>{1, 1}, {2, 3}, {7, 26}, {11, 49}}) {
      Case c;
      c.channels = 40;
      if (!SetTestWindow(w, hw.first, hw.second, &c)) continue;
      Check(c, 1);
      c.batch = 2;
      Check(c, 3);
    }
  }
}

TEST(DepthwiseConvMkldnn, EveryActivationBiasAndWideRows) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (const auto& act : OwnLoopActivations()) {
    for (int threads : {1, 3}) {
      Case c;
      c.channels = 72;
      c.in_h = 10;
      c.in_w = 21;
      c.act = act;
      Check(c, threads);
      c.bias = false;
      Check(c, threads);
    }
  }
  // Rows wider than their channels: 8 channels blocked by 16.
  Case blocked;
  blocked.channels = 8;
  blocked.in_stride = 16;
  blocked.act = {"relu"};
  Check(blocked, 3);
  EXPECT_TRUE(kernels::mkldnn::OwnConvLoopsFuse({"hard_swish"}));
  EXPECT_FALSE(kernels::mkldnn::OwnConvLoopsFuse({"tanh"}));
}

// Depthwise convolutions as a detector's backbone has them: on a stem's
// 16-blocked output (8 channels), on a 1x1's channel-last output (3x3 and
// 5x5, strides 1 and 2, fused activations, SAME padding), feeding 1x1s.
TEST(DepthwiseConvMkldnn, ProgramsMatchPlainOverAStreamOfShapes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  auto stem_w =
      b.AddParameter("stem_w", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 21));
  auto dw_w =
      b.AddParameter("dw_w", RandomTensor<float>({8, 1, 3, 3}, -1, 1, 22));
  auto dw_b = b.AddParameter("dw_b", RandomTensor<float>({8}, -1, 1, 23));
  auto expand_w =
      b.AddParameter("expand_w", RandomTensor<float>({40, 8, 1, 1}, -1, 1, 24));
  auto dw5_w =
      b.AddParameter("dw5_w", RandomTensor<float>({40, 1, 5, 5}, -1, 1, 25));
  auto dw5_b = b.AddParameter("dw5_b", RandomTensor<float>({40}, -1, 1, 26));
  auto dws_w =
      b.AddParameter("dws_w", RandomTensor<float>({40, 1, 3, 3}, -1, 1, 27));
  auto project_w = b.AddParameter(
      "project_w", RandomTensor<float>({24, 40, 1, 1}, -1, 1, 28));
  auto stem = b.AddVar("stem");
  auto dw = b.AddVar("dw");
  auto expanded = b.AddVar("expanded");
  auto dw5 = b.AddVar("dw5");
  auto dws = b.AddVar("dws");
  auto projected = b.AddVar("projected");
  b.AddOp("fused_conv2d", {{"Input", {x}}, {"Filter", {stem_w}}},
          {{"Output", {stem}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("hard_swish")}});
  b.AddOp("fused_conv2d",
          {{"Input", {stem}}, {"Filter", {dw_w}}, {"Bias", {dw_b}}},
          {{"Output", {dw}}},
          {{"paddings", std::vector<int>{1, 1}},
           {"groups", 8},
           {"fuse_activation", std::string("relu")}});
  b.AddOp("fused_conv2d", {{"Input", {dw}}, {"Filter", {expand_w}}},
          {{"Output", {expanded}}},
          {{"fuse_activation", std::string("hard_swish")}});
  b.AddOp("fused_conv2d",
          {{"Input", {expanded}}, {"Filter", {dw5_w}}, {"Bias", {dw5_b}}},
          {{"Output", {dw5}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{2, 2}},
           {"groups", 40},
           {"fuse_activation", std::string("hard_swish")}});
  b.AddOp("depthwise_conv2d", {{"Input", {dw5}}, {"Filter", {dws_w}}},
          {{"Output", {dws}}},
          {{"padding_algorithm", std::string("SAME")}, {"groups", 40}});
  b.AddOp("conv2d", {{"Input", {dws}}, {"Filter", {project_w}}},
          {{"Output", {projected}}});
  b.AddOutput(dw);
  b.AddOutput(dw5);
  b.AddOutput(projected);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     {{1, 3, 24, 40},
                                      {2, 3, 13, 7},
                                      {1, 3, 24, 40},
                                      {1, 3, 1, 1},
                                      {1, 3, 65, 31},
                                      {2, 3, 13, 7}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
