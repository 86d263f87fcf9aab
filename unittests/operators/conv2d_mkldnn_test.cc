// conv2d through the MKLDNN kernel against PLAIN: groups, strides,
// dilations, asymmetric and SAME/VALID paddings, the truncated output size,
// bias, NHWC, channel counts for which oneDNN reorders the weights; and
// weights that are model parameters, whose reorder is cached by address.
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

struct Conv {
  int64_t n = 1, c = 3, h = 9, w = 9, m = 4, kh = 3, kw = 3;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  int groups = 1;
  std::string padding_algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
  bool bias = false;
};

void CheckConv(const std::string& op, const Conv& k, uint32_t seed = 1) {
  SCOPED_TRACE(op + " c=" + std::to_string(k.c) + " m=" + std::to_string(k.m) +
               " groups=" + std::to_string(k.groups) + " " + k.data_format +
               " " + k.padding_algorithm);
  const framework::DDim input = k.data_format == "NHWC"
                                    ? framework::DDim{k.n, k.h, k.w, k.c}
                                    : framework::DDim{k.n, k.c, k.h, k.w};
  OpTester t(op);
  t.Input("Input", RandomTensor<float>(input, -1, 1, seed))
      .Input("Filter", RandomTensor<float>({k.m, k.c / k.groups, k.kh, k.kw},
                                           -1, 1, seed + 1));
  if (k.bias) t.Input("Bias", RandomTensor<float>({k.m}, -1, 1, seed + 2));
  t.Output("Output");
  RunAllKernelsWith(&t, {{"strides", k.strides},
                         {"paddings", k.paddings},
                         {"dilations", k.dilations},
                         {"groups", k.groups},
                         {"padding_algorithm", k.padding_algorithm},
                         {"data_format", k.data_format}});
}

TEST(Conv2dMkldnn, HasKernel) { ExpectMkldnnKernel("conv2d"); }

TEST(Conv2dMkldnn, Geometry) {
  Conv k;
  CheckConv("conv2d", k);
  k.paddings = {1, 1};
  CheckConv("conv2d", k);
  k.strides = {2, 1};
  k.paddings = {0, 2, 1, 0};  // [top, bottom, left, right]
  k.h = 13;
  k.w = 8;
  CheckConv("conv2d", k);
  k = Conv();
  k.dilations = {2, 3};
  k.paddings = {2, 1};
  k.h = 11;
  CheckConv("conv2d", k);
  k = Conv();
  k.kh = 5;
  k.kw = 2;
  k.strides = {3, 2};
  k.h = 14;
  k.w = 13;
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, PaddingAlgorithms) {
  Conv k;
  k.padding_algorithm = "SAME";
  k.strides = {2, 2};
  k.h = 10;
  k.w = 7;
  k.paddings = {5, 5};  // ignored
  CheckConv("conv2d", k);
  k.dilations = {2, 2};  // forced to 1 under SAME
  k.kh = 2;
  k.kw = 4;
  CheckConv("conv2d", k);
  k = Conv();
  k.padding_algorithm = "VALID";
  k.paddings = {2, 2};  // ignored
  k.strides = {3, 2};
  k.h = 13;
  k.w = 12;
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, TruncatedOutputSize) {
  // Windows that do not fit by less than a stride: Paddle's truncating
  // division still counts them, so the end padding grows for oneDNN.
  Conv k;
  k.h = 2;
  k.w = 2;
  k.strides = {2, 2};
  CheckConv("conv2d", k);
  k.h = 8;
  k.w = 10;
  k.strides = {3, 4};
  k.paddings = {1, 0, 0, 2};
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, GroupsAndBias) {
  Conv k;
  k.c = 4;
  k.m = 6;
  k.groups = 2;
  k.paddings = {1, 1};
  k.bias = true;
  CheckConv("conv2d", k);
  k.c = 4;
  k.m = 8;
  k.groups = 4;  // depthwise with multiplier 2 under the conv2d type
  CheckConv("conv2d", k);
  k = Conv();
  k.n = 2;
  k.bias = true;
  k.kh = k.kw = 1;
  k.c = 5;
  k.m = 7;
  k.h = 13;
  k.w = 3;
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, Nhwc) {
  Conv k;
  k.data_format = "NHWC";
  k.n = 2;
  k.paddings = {1, 0, 2, 1};
  k.strides = {2, 2};
  k.h = 9;
  k.w = 6;
  CheckConv("conv2d", k);
  k.c = 6;
  k.m = 6;
  k.groups = 3;
  k.bias = true;
  CheckConv("conv2d", k);
  k.c = 32;
  k.m = 48;
  k.groups = 1;
  k.h = k.w = 17;
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, ManyChannels) {
  // Channel counts for which oneDNN picks blocked weight formats.
  Conv k;
  k.c = 32;
  k.m = 64;
  k.h = k.w = 20;
  k.paddings = {1, 1};
  k.bias = true;
  CheckConv("conv2d", k);
  k.kh = k.kw = 1;
  k.paddings = {0, 0};
  k.c = 48;
  k.m = 24;
  k.n = 2;
  CheckConv("conv2d", k);
  k.groups = 4;
  k.kh = k.kw = 3;
  k.strides = {2, 2};
  CheckConv("conv2d", k);
}

// 3x3, stride 1, enough channels: oneDNN's Winograd kernels (F(2x2, 3x3)
// on small maps, F(4x4, 3x3) on large ones), whose blocked result is
// reordered into the output; odd sizes, padding, NHWC, batches.
TEST(Conv2dMkldnn, Winograd) {
  Conv k;
  k.c = 96;
  k.m = 24;
  k.paddings = {1, 1};
  k.bias = true;
  for (const std::vector<int64_t>& hw :
       std::vector<std::vector<int64_t>>{{13, 21}, {24, 40}, {70, 90}}) {
    k.h = hw[0];
    k.w = hw[1];
    CheckConv("conv2d", k);
  }
  k.h = 11;
  k.w = 9;
  k.n = 2;
  k.bias = false;
  k.paddings = {0, 0};
  CheckConv("conv2d", k);
  k.data_format = "NHWC";
  k.paddings = {1, 1};
  CheckConv("conv2d", k);
}

TEST(Conv2dMkldnn, EmptyBatchRunsPlain) {
  Conv k;
  k.n = 0;
  CheckConv("conv2d", k);
}

// Two convolutions of the same geometry whose filters are model
// parameters: each gets its own cached reorder (keyed by the filter's
// address), and later runs with new inputs reuse them.
TEST(Conv2dMkldnn, ParameterWeightsAreCachedPerFilter) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 16, 12, 12});
  auto w1 = b.AddParameter("w1", RandomTensor<float>({32, 16, 3, 3}, -1, 1, 7));
  auto w2 = b.AddParameter("w2", RandomTensor<float>({32, 16, 3, 3}, -1, 1, 8));
  auto bias = b.AddParameter("bias", RandomTensor<float>({32}, -1, 1, 9));
  auto y1 = b.AddVar("y1");
  auto y2 = b.AddVar("y2");
  const framework::AttributeMap attrs = {{"paddings", std::vector<int>{1, 1}},
                                         {"strides", std::vector<int>{1, 1}}};
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w1}}, {"Bias", {bias}}},
          {{"Output", {y1}}}, attrs);
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w2}}}, {{"Output", {y2}}},
          attrs);
  b.AddOutput(y1);
  b.AddOutput(y2);
  const framework::ProgramDesc program = b.Build();

  Runner plain(program, b.parameters(), framework::LibraryType::Plain());
  Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
  for (uint32_t seed : {1u, 2u, 3u}) {
    // The second input has another batch: new primitives, same weights.
    const int64_t batch = seed == 2 ? 3 : 1;
    const auto input = RandomTensor<float>({batch, 16, 12, 12}, -1, 1, seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), 2u);
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectTensorNear(got[i], expected[i], kMkldnnTolerance, kMkldnnTolerance);
    }
  }
}

// A Winograd convolution (fused with bias and relu) run by one executor
// on alternating batch sizes, as a predictor fed varying batches.
TEST(Conv2dMkldnn, WinogradAcrossBatches) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 64, 9, 9});
  auto w = b.AddParameter("w", RandomTensor<float>({64, 64, 3, 3}, -1, 1, 7));
  auto bias = b.AddParameter("bias", RandomTensor<float>({64}, -1, 1, 9));
  auto y = b.AddVar("y");
  b.AddOp("fused_conv2d", {{"Input", {x}}, {"Filter", {w}}, {"Bias", {bias}}},
          {{"Output", {y}}}, {{"fuse_activation", std::string("relu")}});
  b.AddOutput(y);
  const framework::ProgramDesc program = b.Build();
  Runner plain(program, b.parameters(), framework::LibraryType::Plain());
  Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
  uint32_t seed = 1;
  for (int64_t batch : {3, 1, 1, 3, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const auto input = RandomTensor<float>({batch, 64, 9, 9}, -1, 1, ++seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), 1u);
    ExpectTensorNear(got[0], expected[0], kMkldnnTolerance, kMkldnnTolerance);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
