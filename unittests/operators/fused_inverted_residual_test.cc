// fused_inverted_residual against three fused_conv2d ops run as such
// (PLAIN): expansion, depthwise and projection with each one's bias and
// activation, a residual, strides 1 and 2, 3 and 5 taps, uneven and
// algorithm-made paddings, several images, 1-pixel and empty inputs; and
// the errors of filters that do not chain. Through the MKLDNN kernel:
// plain inputs here (handed to PLAIN), channel-last ones in a graph, over
// a stream of sizes that takes both its routes (whole maps and bands).
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

struct Block {
  int64_t expanded;
  int64_t outputs;
  int64_t kernel;
  int stride;
  std::vector<int> paddings;
  std::string algorithm = "EXPLICIT";
  std::vector<std::string> activations = {"", "", ""};
  bool biases = true;
  bool residual = false;
};

Tensor Conv(const Tensor& x,
            const Tensor& filter,
            const Tensor* bias,
            const Tensor* residual,
            const std::string& activation,
            const Block& window,
            int groups,
            bool depthwise) {
  OpTester t("fused_conv2d");
  t.Input("Input", x)
      .Input("Filter", filter)
      .Output("Output")
      .Attr("groups", groups)
      .Attr("fuse_activation", activation)
      .Attr("fuse_beta", 6.0f);
  if (depthwise) {
    t.Attr("strides", std::vector<int32_t>{window.stride, window.stride})
        .Attr("paddings", window.paddings)
        .Attr("padding_algorithm", window.algorithm);
  }
  if (bias != nullptr) t.Input("Bias", *bias);
  if (residual != nullptr) t.Input("ResidualData", *residual);
  t.Run();
  return t.GetOutput("Output");
}

void Check(const DDim& input, const Block& b) {
  SCOPED_TRACE("Input " + framework::DimsToString(input) + " expanded " +
               std::to_string(b.expanded) + " kernel " +
               std::to_string(b.kernel) + " stride " +
               std::to_string(b.stride));
  const int64_t c = input[1];
  const int64_t e = b.expanded;
  const Tensor x = RandomTensor<float>(input, -1, 1, 71);
  const Tensor f1 = RandomTensor<float>({e, c, 1, 1}, -0.5, 0.5, 72);
  const Tensor b1 = RandomTensor<float>({e}, -0.5, 0.5, 73);
  const Tensor f2 =
      RandomTensor<float>({e, 1, b.kernel, b.kernel}, -0.5, 0.5, 74);
  const Tensor b2 = RandomTensor<float>({e}, -0.5, 0.5, 75);
  const Tensor f3 = RandomTensor<float>({b.outputs, e, 1, 1}, -0.5, 0.5, 76);
  const Tensor b3 = RandomTensor<float>({b.outputs}, -0.5, 0.5, 77);
  const Tensor expanded = Conv(x, f1, b.biases ? &b1 : nullptr, nullptr,
                               b.activations[0], b, 1, false);
  const Tensor filtered = Conv(expanded, f2, b.biases ? &b2 : nullptr, nullptr,
                               b.activations[1], b, static_cast<int>(e), true);
  const Tensor residual = RandomTensor<float>(
      {filtered.dims()[0], b.outputs, filtered.dims()[2], filtered.dims()[3]},
      -1, 1, 78);
  const Tensor expected =
      Conv(filtered, f3, b.biases ? &b3 : nullptr,
           b.residual ? &residual : nullptr, b.activations[2], b, 1, false);
  OpTester t("fused_inverted_residual");
  t.Input("Input", x)
      .Parameter("Filter", f1)
      .Parameter("DepthwiseFilter", f2)
      .Parameter("ProjectFilter", f3)
      .Output("Output")
      .Attr("groups", static_cast<int>(e))
      .Attr("strides", std::vector<int32_t>{b.stride, b.stride})
      .Attr("paddings", b.paddings)
      .Attr("padding_algorithm", b.algorithm)
      .Attr("fuse_activation", b.activations[0])
      .Attr("fuse_activation2", b.activations[1])
      .Attr("fuse_activation3", b.activations[2])
      .Attr("fuse_beta", 6.0f)
      .Attr("fuse_beta2", 6.0f)
      .Attr("fuse_beta3", 6.0f);
  if (b.biases) {
    t.Parameter("Bias", b1)
        .Parameter("DepthwiseBias", b2)
        .Parameter("ProjectBias", b3);
  }
  if (b.residual) t.Input("ResidualData", residual);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"), expected, 1e-5, 1e-5);
  t.RunAllKernels(kMkldnnTolerance, kMkldnnTolerance);
}

TEST(FusedInvertedResidualOp, MatchesThreeConvolutions) {
  Block first{16, 8, 3, 1, {1, 1}};
  first.activations = {"relu", "relu", ""};
  first.residual = true;
  Check({1, 8, 9, 11}, first);
  Block second{12, 6, 5, 2, {2, 2}};
  second.activations = {"hard_swish", "hard_swish", ""};
  second.biases = false;
  Check({2, 4, 7, 6}, second);
  // Uneven paddings, and paddings from SAME.
  Block uneven{6, 5, 3, 2, {0, 1, 1, 0}};
  uneven.activations = {"relu6", "", "relu"};
  Check({1, 3, 8, 7}, uneven);
  Block same{6, 3, 5, 2, {0, 0}, "SAME"};
  Check({2, 3, 9, 10}, same);
  Check({1, 1, 1, 1}, Block{1, 1, 3, 1, {1, 1}});
  Block empty{8, 4, 3, 1, {1, 1}};
  empty.residual = true;
  Check({0, 4, 5, 5}, empty);
}

TEST(FusedInvertedResidualOp, FiltersThatDoNotChainAreErrors) {
  struct Case {
    DDim filter, depthwise, project;
    int groups;
    int64_t bias3;
    DDim residual;
    std::string layout;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {{8, 5, 1, 1},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       8,
       0,
       {},
       "NCHW",
       {"fused_inverted_residual", "Filter must be 4-D [M, 4, 1, 1]"}},
      {{8, 4, 3, 3},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       8,
       0,
       {},
       "NCHW",
       {"Filter must be 4-D [M, 4, 1, 1]"}},
      {{8, 4, 1, 1},
       {8, 2, 3, 3},
       {4, 8, 1, 1},
       8,
       0,
       {},
       "NCHW",
       {"DepthwiseFilter must be 4-D [8, 1, KH, KW] with groups 8"}},
      {{8, 4, 1, 1},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       4,
       0,
       {},
       "NCHW",
       {"with groups 4"}},
      {{8, 4, 1, 1},
       {8, 1, 3, 3},
       {4, 6, 1, 1},
       8,
       0,
       {},
       "NCHW",
       {"ProjectFilter must be 4-D [M, 8, 1, 1]"}},
      {{8, 4, 1, 1},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       8,
       3,
       {},
       "NCHW",
       {"ProjectBias dims", "(4)"}},
      {{8, 4, 1, 1},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       8,
       0,
       {1, 4, 5, 6},
       "NCHW",
       {"ResidualData dims [1, 4, 5, 6]", "[1, 4, 5, 5]"}},
      {{8, 4, 1, 1},
       {8, 1, 3, 3},
       {4, 8, 1, 1},
       8,
       0,
       {},
       "NHWC",
       {"data_format must be NCHW"}},
  };
  for (const Case& c : cases) {
    ExpectError(
        [&] {
          OpTester t("fused_inverted_residual");
          t.Input("Input", RandomTensor<float>({1, 4, 5, 5}, -1, 1, 1))
              .Input("Filter", RandomTensor<float>(c.filter, -1, 1, 2))
              .Input("DepthwiseFilter",
                     RandomTensor<float>(c.depthwise, -1, 1, 3))
              .Input("ProjectFilter", RandomTensor<float>(c.project, -1, 1, 4))
              .Output("Output")
              .Attr("groups", c.groups)
              .Attr("paddings", std::vector<int32_t>{1, 1})
              .Attr("data_format", c.layout);
          if (c.bias3 > 0) {
            t.Input("ProjectBias", RandomTensor<float>({c.bias3}, -1, 1, 5));
          }
          if (c.residual.size() > 0) {
            t.Input("ResidualData", RandomTensor<float>(c.residual, -1, 1, 6));
          }
          t.Run();
        },
        ErrorCode::kInvalidArgument, c.words);
  }
}

// Two blocks after a stem and a 1x1 convolution on our loops (a
// channel-last 16-channel map): the first with 3 taps, stride 1 and the
// map as its residual, the second with 5 taps, stride 2 and SAME
// paddings; over a stream of sizes against PLAIN (two threads). The small
// sizes take the whole-map route; 240x232 (7.1 MB expanded) and three
// images of 90x220 (7.6 MB together, the threads' bands crossing from one
// image to the next) the bands.
TEST(FusedInvertedResidualMkldnn, TwoBlocksInAGraphOverAStreamOfSizes) {
  ExpectMkldnnKernel("fused_inverted_residual");
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
  const std::string features = "features";
  AddChannelLastStem(&b, x, 16, features);
  auto param = [&b](const std::string& name, const DDim& dims, uint32_t seed) {
    return b.AddParameter(name, RandomTensor<float>(dims, -0.4, 0.4, seed));
  };
  auto block1 = b.AddVar("block1");
  auto block2 = b.AddVar("block2");
  auto y = b.AddVar("y");
  b.AddOp("fused_inverted_residual",
          {{"Input", {features}},
           {"Filter", {param("e1", {32, 16, 1, 1}, 8)}},
           {"Bias", {param("eb1", {32}, 9)}},
           {"DepthwiseFilter", {param("d1", {32, 1, 3, 3}, 10)}},
           {"DepthwiseBias", {param("db1", {32}, 11)}},
           {"ProjectFilter", {param("p1", {16, 32, 1, 1}, 12)}},
           {"ProjectBias", {param("pb1", {16}, 13)}},
           {"ResidualData", {features}}},
          {{"Output", {block1}}},
          {{"groups", 32},
           {"paddings", std::vector<int>{1, 1}},
           {"fuse_activation", std::string("relu")},
           {"fuse_activation2", std::string("relu")}});
  b.AddOp("fused_inverted_residual",
          {{"Input", {block1}},
           {"Filter", {param("e2", {40, 16, 1, 1}, 14)}},
           {"DepthwiseFilter", {param("d2", {40, 1, 5, 5}, 15)}},
           {"ProjectFilter", {param("p2", {24, 40, 1, 1}, 16)}},
           {"ProjectBias", {param("pb2", {24}, 17)}}},
          {{"Output", {block2}}},
          {{"groups", 40},
           {"strides", std::vector<int>{2, 2}},
           {"padding_algorithm", std::string("SAME")},
           {"fuse_activation", std::string("hard_swish")},
           {"fuse_activation2", std::string("hard_swish")},
           {"fuse_activation3", std::string("relu6")},
           {"fuse_beta3", 6.0f}});
  // A reader after them, so that their outputs stay as the kernel wrote
  // them (a fetch would make them plain).
  b.AddOp("conv2d",
          {{"Input", {block2}}, {"Filter", {param("w3", {2, 24, 1, 1}, 18)}}},
          {{"Output", {y}}});
  b.AddOutput(y);
  const framework::ProgramDesc program = b.Build();
  Runner plain(program, b.parameters(), framework::LibraryType::Plain());
  Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
  uint32_t seed = 1;
  for (const DDim& d : std::vector<DDim>{{1, 3, 12, 20},
                                         {2, 3, 9, 7},
                                         {1, 3, 240, 232},
                                         {3, 3, 90, 220},
                                         {1, 3, 1, 1},
                                         {1, 3, 12, 20}}) {
    SCOPED_TRACE("input " + framework::DimsToString(d));
    const auto input = RandomTensor<float>(d, -1, 1, ++seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), 1u);
    ExpectTensorNear(got[0], expected[0], kMkldnnTolerance, kMkldnnTolerance);
    // A 1-pixel map is plain whichever layout holds it.
    if (d[2] * d[3] > 1) ExpectOwnLayouts(mkldnn, {block1, block2});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
