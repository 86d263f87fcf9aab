// fused_upsample_concat and fused_upsample_add through their MKLDNN
// kernels: in a graph whose
// convolutions and pooling write channel-last layouts (a stem, then 1x1
// convolutions and pooling on our own loops: a feature pyramid's levels), so
// that the kernel copies pixels itself and writes a channel-last output for the
// next convolution; a stream of sizes, some seen before, against PLAIN. Plain
// inputs are the op test's.
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(FusedUpsampleMkldnn, HasKernels) {
  ExpectMkldnnKernel("fused_upsample_concat");
  ExpectMkldnnKernel("fused_upsample_add");
}

TEST(FusedUpsampleMkldnn, PyramidLevelsInAGraphOverAStreamOfSizes) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  const std::string fine = "fine";  // [N, 24, H, W]
  AddChannelLastStem(&b, x, 24, fine);
  auto w2 = b.AddParameter("w2", RandomTensor<float>({16, 24, 1, 1}, -1, 1, 8));
  auto w3 = b.AddParameter("w3", RandomTensor<float>({4, 56, 1, 1}, -1, 1, 9));
  auto w4 = b.AddParameter("w4", RandomTensor<float>({16, 24, 1, 1}, -1, 1, 5));
  auto coarse = b.AddVar("coarse");  // [N, 24, H / 2, W / 2]
  auto narrow = b.AddVar("narrow");  // [N, 16, H / 2, W / 2]
  auto fine16 = b.AddVar("fine16");  // [N, 16, H, W]
  auto pooled = b.AddVar("pooled");  // [N, 16, 1, 1]
  auto merged = b.AddVar("merged");  // fine16 * pooled + narrow upsampled
  auto joined = b.AddVar("joined");  // [N, 56, H, W]
  auto y = b.AddVar("y");
  b.AddOp("pool2d", {{"X", {fine}}}, {{"Out", {coarse}}},
          {{"pooling_type", std::string("max")},
           {"ksize", std::vector<int>{2, 2}},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("conv2d", {{"Input", {coarse}}, {"Filter", {w2}}},
          {{"Output", {narrow}}});
  b.AddOp("conv2d", {{"Input", {fine}}, {"Filter", {w4}}},
          {{"Output", {fine16}}});
  b.AddOp("pool2d", {{"X", {fine16}}}, {{"Out", {pooled}}},
          {{"pooling_type", std::string("avg")},
           {"global_pooling", true},
           {"ksize", std::vector<int>{1, 1}}});
  b.AddOp("fused_upsample_add",
          {{"X", {fine16}}, {"Y", {narrow}}, {"XScale", {pooled}}},
          {{"Out", {merged}}}, {{"scale_h", 2.f}, {"scale_w", 2.f}});
  b.AddOp("fused_upsample_concat", {{"X", {narrow, merged, coarse}}},
          {{"Out", {joined}}},
          {{"scale_h", std::vector<float>{2.f, 1.f, 2.f}},
           {"scale_w", std::vector<float>{2.f, 1.f, 2.f}}});
  b.AddOp("conv2d", {{"Input", {joined}}, {"Filter", {w3}}}, {{"Output", {y}}});
  b.AddOutput(y);
  const framework::ProgramDesc program = b.Build();
  Runner plain(program, b.parameters(), framework::LibraryType::Plain());
  Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
  uint32_t seed = 1;
  for (const framework::DDim& d : PyramidStreamSizes()) {
    SCOPED_TRACE("input " + framework::DimsToString(d));
    const auto input = RandomTensor<float>(d, -1, 1, ++seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectTensorNear(got[i], expected[i], kMkldnnTolerance, kMkldnnTolerance);
    }
    // Where our loops run (AVX2 and up) the levels come channel-last, and
    // the sum and the join are the kernels' own, in channel-last layouts
    // (the PLAIN kernels would leave them plain).
    ExpectOwnLayouts(mkldnn, {merged, joined});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
