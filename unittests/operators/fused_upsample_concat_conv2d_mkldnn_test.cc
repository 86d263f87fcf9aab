// fused_upsample_concat_conv2d on our own Winograd loops: RunWinogradConv
// reading its input as parts through nearest indexes, against the same
// call on the join stored (the same tiles, so the same bits: channel
// counts on each side of the vectors, whole and fractional scales, parts
// taken as they are, images not multiples of a tile, paddings 0 to 2,
// batches, 1 and 3 threads); and the op's MKLDNN kernel in a graph whose
// levels come channel-last, over a stream of sizes, against PLAIN.
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
#include "operators/upsample_shape.h"
#include "platform/device_context.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using kernels::mkldnn::WinogradConv;
using kernels::mkldnn::WinogradInputPart;

struct GatherCase {
  int64_t batch = 1;
  int64_t out_h = 8;  // the join's height and width
  int64_t out_w = 8;
  std::vector<int64_t> channels;  // per part
  std::vector<float> scales;      // per part, both ways
  int64_t out_channels = 16;
  int64_t pad = 1;
};

// Output of one call, with the input as parts (`gathered`) or stored.
std::vector<float> RunCall(WinogradConv conv, int threads) {
  std::vector<float> packed(kernels::mkldnn::PackedWinogradFilterSize(
      conv.in_channels, conv.out_channels));
  std::vector<float> filter(conv.out_channels * conv.in_channels * 9);
  for (size_t i = 0; i < filter.size(); ++i) {
    filter[i] = static_cast<float>((i * 7919) % 2001) / 1000.f - 1.f;
  }
  kernels::mkldnn::PackWinogradFilter(filter.data(), conv.in_channels,
                                      conv.out_channels, packed.data());
  std::vector<float> bias(conv.out_channels, 0.25f);
  const int64_t out_floats =
      conv.batch * conv.out_h * conv.out_w * conv.out_channels;
  std::vector<float> out(out_floats + 16,
                         std::numeric_limits<float>::quiet_NaN());
  conv.packed_filter = packed.data();
  conv.bias = bias.data();
  conv.out = out.data();
  platform::DeviceContextOptions options;
  options.num_threads = threads;
  platform::CPUDeviceContext dev(options);
  std::vector<float> scratch(
      kernels::mkldnn::WinogradScratchBytes(conv, threads) / sizeof(float) +
      16);
  float* aligned = scratch.data();
  while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++aligned;
  kernels::mkldnn::RunWinogradConv(dev, conv, aligned);
  return out;
}

void CheckGather(const GatherCase& c, int threads) {
  SCOPED_TRACE(::testing::Message()
               << "batch " << c.batch << " join " << c.out_h << "x" << c.out_w
               << " parts " << c.channels.size() << " pad " << c.pad
               << " threads " << threads);
  operators::UpsampleConcatGeometry join;
  join.batch = c.batch;
  join.out_h = c.out_h;
  join.out_w = c.out_w;
  std::vector<std::vector<float>> sources;
  for (size_t k = 0; k < c.channels.size(); ++k) {
    operators::UpsampledPart p;
    p.input = k;
    p.channels = c.channels[k];
    p.in_h = static_cast<int64_t>(c.out_h / c.scales[k]);
    p.in_w = static_cast<int64_t>(c.out_w / c.scales[k]);
    p.scale_h = p.scale_w = c.scales[k];
    p.channel_offset = join.channels;
    join.channels += p.channels;
    join.parts.push_back(p);
    std::vector<float> source(c.batch * p.in_h * p.in_w * p.channels);
    for (size_t i = 0; i < source.size(); ++i) {
      source[i] =
          static_cast<float>((i * 2654435761u + k) % 4001) / 2000.f - 1.f;
    }
    sources.push_back(std::move(source));
  }
  // The join stored, channel-last.
  std::vector<operators::NearestIndex> index;
  std::vector<float> joined(c.batch * c.out_h * c.out_w * join.channels);
  for (size_t k = 0; k < join.parts.size(); ++k) {
    const operators::UpsampledPart& p = join.parts[k];
    index.push_back(operators::NearestIndexOf(p, join));
    ASSERT_EQ(index[k].rows.size(), static_cast<size_t>(c.out_h));
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t y = 0; y < c.out_h; ++y) {
        for (int64_t x = 0; x < c.out_w; ++x) {
          const float* from =
              sources[k].data() +
              ((n * p.in_h + index[k].rows[y]) * p.in_w + index[k].columns[x]) *
                  p.channels;
          float* to = joined.data() +
                      ((n * c.out_h + y) * c.out_w + x) * join.channels +
                      p.channel_offset;
          std::copy(from, from + p.channels, to);
        }
      }
    }
  }
  WinogradConv conv;
  conv.batch = c.batch;
  conv.in_h = c.out_h;
  conv.in_w = c.out_w;
  conv.out_h = c.out_h + 2 * c.pad - 2;
  conv.out_w = c.out_w + 2 * c.pad - 2;
  conv.pad_top = c.pad;
  conv.pad_left = c.pad;
  conv.in_channels = join.channels;
  conv.out_channels = c.out_channels;
  conv.activation.type = "relu";
  WinogradConv stored = conv;
  stored.in = joined.data();
  stored.in_stride = join.channels;
  std::vector<WinogradInputPart> parts;
  for (size_t k = 0; k < join.parts.size(); ++k) {
    const operators::UpsampledPart& p = join.parts[k];
    WinogradInputPart part;
    part.in = sources[k].data();
    part.in_h = p.in_h;
    part.in_w = p.in_w;
    part.channels = p.channels;
    part.channel_offset = p.channel_offset;
    part.rows = index[k].rows.data();
    part.columns = index[k].columns.data();
    parts.push_back(part);
  }
  WinogradConv gathered = conv;
  gathered.parts = parts.data();
  gathered.part_count = static_cast<int64_t>(parts.size());
  const std::vector<float> want = RunCall(stored, threads);
  const std::vector<float> got = RunCall(gathered, threads);
  const size_t floats =
      static_cast<size_t>(c.batch * conv.out_h * conv.out_w * c.out_channels);
  for (size_t i = 0; i < floats; ++i) {
    ASSERT_EQ(got[i], want[i])
        << "pixel " << i / c.out_channels << " channel " << i % c.out_channels;
  }
  for (size_t i = floats; i < got.size(); ++i) {
    ASSERT_TRUE(std::isnan(got[i])) << "written past the end at " << i;
  }
}

TEST(UpsampleConcatConvMkldnn, GatheredTilesMatchTheStoredJoin) {
  if (!kernels::mkldnn::OwnConvLoopsAvailable()) {
    GTEST_SKIP() << "our loops need AVX2 or AVX-512";
  }
  for (int threads : {1, 3}) {
    // DBNet's head: 24 channels a level, upsampled by 8, 4, 2 and 1.
    CheckGather({1, 16, 24, {24, 24, 24, 24}, {8.f, 4.f, 2.f, 1.f}, 24, 1},
                threads);
    // Channel counts off the vectors (13 and 11), a batch, no padding.
    CheckGather({2, 10, 14, {13, 11, 8}, {2.f, 1.f, 2.f}, 17, 0}, threads);
    // Fractional scales, a wide padding, an image smaller than a tile.
    CheckGather({1, 6, 9, {16, 16}, {1.5f, 3.f}, 16, 2}, threads);
    CheckGather({1, 3, 3, {32}, {3.f}, 16, 1}, threads);
  }
}

TEST(UpsampleConcatConvMkldnn, HasKernels) {
  ExpectMkldnnKernel("fused_upsample_concat_conv2d");
}

TEST(UpsampleConcatConvMkldnn, APyramidsHeadInAGraphOverAStreamOfSizes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  const std::string fine = "fine";  // [N, 16, H, W], channel-last
  AddChannelLastStem(&b, x, 16, fine);
  auto w2 =
      b.AddParameter("w2", RandomTensor<float>({13, 16, 1, 1}, -0.5, 0.5, 8));
  auto w3 =
      b.AddParameter("w3", RandomTensor<float>({17, 45, 3, 3}, -0.2, 0.2, 9));
  auto bias = b.AddParameter("bias", RandomTensor<float>({17}, -1, 1, 10));
  auto coarse = b.AddVar("coarse");  // [N, 16, H / 2, W / 2]
  auto narrow = b.AddVar("narrow");  // [N, 13, H / 2, W / 2]
  auto z = b.AddVar("z");            // [N, 17, H, W]
  auto y = b.AddVar("y");            // [N, 4, H, W]
  auto w4 =
      b.AddParameter("w4", RandomTensor<float>({4, 17, 1, 1}, -0.5, 0.5, 11));
  b.AddOp("pool2d", {{"X", {fine}}}, {{"Out", {coarse}}},
          {{"pooling_type", std::string("max")},
           {"ksize", std::vector<int>{2, 2}},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("conv2d", {{"Input", {coarse}}, {"Filter", {w2}}},
          {{"Output", {narrow}}});
  b.AddOp("fused_upsample_concat_conv2d",
          {{"X", {narrow, fine, coarse}}, {"Filter", {w3}}, {"Bias", {bias}}},
          {{"Output", {z}}},
          {{"scale_h", std::vector<float>{2.f, 1.f, 2.f}},
           {"scale_w", std::vector<float>{2.f, 1.f, 2.f}},
           {"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("relu")}});
  // A 1x1 convolution after it, so that its output is not fetched and
  // keeps the layout it was written in.
  b.AddOp("conv2d", {{"Input", {z}}, {"Filter", {w4}}}, {{"Output", {y}}});
  b.AddOutput(y);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     PyramidStreamSizes(), {z});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
