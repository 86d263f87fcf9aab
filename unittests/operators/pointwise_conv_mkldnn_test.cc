// The MKLDNN kernel's own 1x1 convolution (kernels/cpu/mkldnn/
// pointwise_conv_util.h): its loops against a triple loop (channel counts
// on each side of the 16-lane vectors and 64-channel panels, pixel counts
// on each side of the tiles and blocks, every fused activation, residual
// in place or apart, no bias, input rows wider than their channels, 1 and
// 3 threads); and programs that route 1x1 convolutions to it (channel-last
// and 16-blocked inputs, a residual, batches and a stream of shapes)
// against PLAIN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "platform/device_context.h"
#include "unittests/operators/mkldnn_test_util.h"
#include "unittests/operators/own_conv_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using kernels::mkldnn::OwnConvLoopsAvailable;
using kernels::mkldnn::PackedPointwiseFilterSize;
using kernels::mkldnn::PackPointwiseFilter;
using kernels::mkldnn::RunPointwiseConv;

struct Case {
  Case(int64_t pixels,
       int64_t in_channels,
       int64_t out_channels,
       int64_t in_stride = 0)
      : pixels(pixels),
        in_channels(in_channels),
        out_channels(out_channels),
        in_stride(in_stride) {}
  int64_t pixels, in_channels, out_channels;
  int64_t in_stride;  // 0: in_channels
  bool bias = true;
  bool residual = false;
  bool in_place = false;  // the residual is the output buffer
  operators::FusedActivation act;
};

void Check(const Case& c, int threads) {
  const int64_t stride = c.in_stride != 0 ? c.in_stride : c.in_channels;
  SCOPED_TRACE(::testing::Message()
               << "pixels " << c.pixels << " in " << c.in_channels << " (row "
               << stride << ") out " << c.out_channels << " act '" << c.act.type
               << "' bias " << c.bias << " residual " << c.residual
               << (c.in_place ? " in place" : "") << " threads " << threads);
  std::vector<float> in(c.pixels * stride),
      filter(c.out_channels * c.in_channels), bias(c.out_channels),
      residual(c.pixels * c.out_channels);
  for (size_t i = 0; i < in.size(); ++i) in[i] = PatternValue(i, 1);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = PatternValue(i, 2);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = PatternValue(i, 3);
  for (size_t i = 0; i < residual.size(); ++i) residual[i] = PatternValue(i, 4);
  std::vector<float> want(c.pixels * c.out_channels);
  for (int64_t p = 0; p < c.pixels; ++p) {
    for (int64_t o = 0; o < c.out_channels; ++o) {
      double sum = c.bias ? bias[o] : 0.0;
      for (int64_t i = 0; i < c.in_channels; ++i) {
        sum += static_cast<double>(in[p * stride + i]) *
               filter[o * c.in_channels + i];
      }
      if (c.residual) sum += residual[p * c.out_channels + o];
      want[p * c.out_channels + o] =
          ReferenceActivate(c.act, static_cast<float>(sum));
    }
  }
  // 64-byte aligned, as the cache's buffers are.
  std::vector<float> storage(
      PackedPointwiseFilterSize(c.in_channels, c.out_channels) + 16);
  float* packed = storage.data();
  while (reinterpret_cast<uintptr_t>(packed) % 64 != 0) ++packed;
  PackPointwiseFilter(filter.data(), c.in_channels, c.out_channels, packed);
  // NaN where nothing should be written past the end.
  std::vector<float> out(want.size() + 16,
                         std::numeric_limits<float>::quiet_NaN());
  const float* res = nullptr;
  if (c.residual && c.in_place) {
    std::copy(residual.begin(), residual.end(), out.begin());
    res = out.data();
  } else if (c.residual) {
    res = residual.data();
  }
  platform::DeviceContextOptions options;
  options.num_threads = threads;
  platform::CPUDeviceContext dev(options);
  kernels::mkldnn::PointwiseConv conv;
  conv.in = in.data();
  conv.in_stride = stride;
  conv.packed_filter = packed;
  conv.bias = c.bias ? bias.data() : nullptr;
  conv.residual = res;
  conv.residual_stride = c.out_channels;
  conv.out = out.data();
  conv.pixels = c.pixels;
  conv.in_channels = c.in_channels;
  conv.out_channels = c.out_channels;
  conv.activation = c.act;
  RunPointwiseConv(dev, conv);
  ExpectLoopOutput(out, want, c.out_channels);
}

TEST(PointwiseConvMkldnn, MatchesTripleLoop) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (int64_t out_channels :
       {1, 8, 12, 16, 17, 24, 36, 40, 56, 64, 65, 120, 200}) {
    for (int64_t in_channels : {1, 3, 8, 33}) {
      for (int64_t pixels : {1, 5, 47, 48, 49, 143}) {
        Check(Case(pixels, in_channels, out_channels), 1);
      }
    }
  }
}

TEST(PointwiseConvMkldnn, EveryActivationResidualAndBias) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  for (const auto& act : OwnLoopActivations()) {
    for (int threads : {1, 3}) {
      Case c(101, 24, 72);
      c.act = act;
      Check(c, threads);
      c.residual = true;
      Check(c, threads);
      c.in_place = true;
      Check(c, threads);
      c.bias = false;
      Check(c, threads);
    }
  }
  // Rows wider than their channels: 8 channels blocked by 16.
  Case blocked(77, 8, 40, 16);
  blocked.act = {"relu"};
  Check(blocked, 3);
  EXPECT_TRUE(kernels::mkldnn::OwnConvLoopsFuse({"hard_swish"}));
  EXPECT_TRUE(kernels::mkldnn::OwnConvLoopsFuse({"sigmoid"}));
  EXPECT_FALSE(kernels::mkldnn::OwnConvLoopsFuse({"tanh"}));
  EXPECT_FALSE(kernels::mkldnn::OwnConvLoopsFuse({"swish", 1.f}));
}

// A stem convolution (3 channels: oneDNN writes 16-blocked channels),
// 1x1 convolutions on its output and on channel-last data, with residuals
// in either layout and activations, as a detector's backbone chains them.
TEST(PointwiseConvMkldnn, ProgramsMatchPlainOverAStreamOfShapes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  auto stem_w =
      b.AddParameter("stem_w", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 11));
  auto expand_w =
      b.AddParameter("expand_w", RandomTensor<float>({24, 8, 1, 1}, -1, 1, 12));
  auto expand_b =
      b.AddParameter("expand_b", RandomTensor<float>({24}, -1, 1, 13));
  auto project_w = b.AddParameter(
      "project_w", RandomTensor<float>({24, 24, 1, 1}, -1, 1, 14));
  auto wide_w =
      b.AddParameter("wide_w", RandomTensor<float>({70, 24, 1, 1}, -1, 1, 15));
  auto dw_w =
      b.AddParameter("dw_w", RandomTensor<float>({8, 1, 3, 3}, -1, 1, 16));
  auto mix_w =
      b.AddParameter("mix_w", RandomTensor<float>({8, 8, 1, 1}, -1, 1, 17));
  auto stem = b.AddVar("stem");
  auto dw = b.AddVar("dw");
  auto mixed = b.AddVar("mixed");
  auto expanded = b.AddVar("expanded");
  auto projected = b.AddVar("projected");
  auto wide = b.AddVar("wide");
  b.AddOp("fused_conv2d", {{"Input", {x}}, {"Filter", {stem_w}}},
          {{"Output", {stem}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("hard_swish")}});
  // Channel-last input, the stem's 16-blocked output as the residual.
  b.AddOp("depthwise_conv2d", {{"Input", {stem}}, {"Filter", {dw_w}}},
          {{"Output", {dw}}},
          {{"paddings", std::vector<int>{1, 1}}, {"groups", 8}});
  b.AddOp("fused_conv2d",
          {{"Input", {dw}}, {"Filter", {mix_w}}, {"ResidualData", {stem}}},
          {{"Output", {mixed}}}, {{"fuse_activation", std::string("relu")}});
  b.AddOp("fused_conv2d",
          {{"Input", {stem}}, {"Filter", {expand_w}}, {"Bias", {expand_b}}},
          {{"Output", {expanded}}}, {{"fuse_activation", std::string("relu")}});
  b.AddOp(
      "fused_conv2d",
      {{"Input", {expanded}},
       {"Filter", {project_w}},
       {"ResidualData", {expanded}}},
      {{"Output", {projected}}},
      {{"fuse_activation", std::string("leaky_relu")}, {"fuse_alpha", 0.1f}});
  b.AddOp("conv2d", {{"Input", {projected}}, {"Filter", {wide_w}}},
          {{"Output", {wide}}});
  b.AddOutput(mixed);
  b.AddOutput(projected);
  b.AddOutput(wide);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     {{1, 3, 24, 40},
                                      {2, 3, 13, 7},
                                      {1, 3, 24, 40},
                                      {1, 3, 1, 1},
                                      {1, 3, 65, 31},
                                      {2, 3, 13, 7}});
}

// Two 1x1 convolutions of an NCHW program whose outputs have the same
// dims write them channel-last on our loops: both are labelled with one
// layout object (MkldnnContext::ChannelLastLayout), and another shape gets
// a layout of its own. (A stem on our loops feeds them channel-last data.)
TEST(PointwiseConvMkldnn, OutputsOfTheSameDimsShareTheirLayout) {
  if (!OwnConvLoopsAvailable())
    GTEST_SKIP() << "no AVX2 or AVX-512 on this CPU";
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  auto stem_w =
      b.AddParameter("stem_w", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 20));
  auto first_w =
      b.AddParameter("first_w", RandomTensor<float>({16, 8, 1, 1}, -1, 1, 21));
  auto second_w =
      b.AddParameter("second_w", RandomTensor<float>({16, 8, 1, 1}, -1, 1, 22));
  auto stem = b.AddVar("stem");
  auto first = b.AddVar("first");
  auto second = b.AddVar("second");
  auto sum = b.AddVar("sum");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {stem_w}}},
          {{"Output", {stem}}},
          {{"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{1, 1}}});
  b.AddOp("conv2d", {{"Input", {stem}}, {"Filter", {first_w}}},
          {{"Output", {first}}});
  b.AddOp("conv2d", {{"Input", {stem}}, {"Filter", {second_w}}},
          {{"Output", {second}}});
  // Fetched tensors are made plain in place: the outputs are summed.
  b.AddOp("elementwise_add", {{"X", {first}}, {"Y", {second}}},
          {{"Out", {sum}}});
  b.AddOutput(sum);
  const framework::ProgramDesc program = b.Build();
  Runner plain(program, b.parameters(), framework::LibraryType::Plain());
  Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
  auto layout_of = [&](const std::string& name) {
    return mkldnn.scope.FindVar(name)->Get<framework::Tensor>().opaque_layout();
  };
  std::vector<const framework::OpaqueLayout*> seen;
  uint32_t seed = 30;
  for (const framework::DDim& dims : std::vector<framework::DDim>{
           {1, 3, 12, 20}, {2, 3, 6, 10}, {1, 3, 12, 20}}) {
    SCOPED_TRACE("input " + framework::DimsToString(dims));
    const auto input = RandomTensor<float>(dims, -1, 1, ++seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), 1u);
    ExpectTensorNear(got[0], expected[0], kMkldnnTolerance, kMkldnnTolerance);
    ASSERT_NE(layout_of("first"), nullptr);
    EXPECT_EQ(layout_of("first"), layout_of("second"));
    EXPECT_NE(layout_of("stem"), layout_of("first"));  // other dims
    seen.push_back(layout_of("first"));
  }
  EXPECT_NE(seen[0], seen[1]);
  EXPECT_EQ(seen[0], seen[2]);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
