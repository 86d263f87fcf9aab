// elementwise_add/sub/mul/div through the MKLDNN kernel against PLAIN:
// equal shapes, Paddle's axis broadcasting (per channel, per row, scalar,
// middle dims), X broadcast against Y (swapped for add and mul, else
// PLAIN), and small tensors (PLAIN). One suite, instantiated per op type.
// Then the product by one factor per channel that elementwise_mul runs
// without oneDNN, alone and in a squeeze-and-excitation graph.
#include <string>
#include <utility>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

class ElementwiseMkldnn : public ::testing::TestWithParam<std::string> {
 protected:
  void Check(const framework::DDim& x, const framework::DDim& y, int axis) {
    SCOPED_TRACE(GetParam() + " X " + framework::DimsToString(x) + " Y " +
                 framework::DimsToString(y) + " axis " + std::to_string(axis));
    OpTester t(GetParam());
    // Y away from 0 so div stays well conditioned.
    t.Input("X", RandomTensor<float>(x, -2, 2, 31))
        .Input("Y", RandomTensor<float>(y, 0.5, 2, 32))
        .Output("Out");
    RunAllKernelsWith(&t, {{"axis", axis}});
  }
};

TEST_P(ElementwiseMkldnn, HasKernel) { ExpectMkldnnKernel(GetParam()); }

TEST_P(ElementwiseMkldnn, Broadcasting) {
  Check({2, 16, 24, 24}, {2, 16, 24, 24}, -1);
  Check({2, 16, 24, 24}, {16}, 1);            // conv bias
  Check({1, 16, 24, 24}, {1, 16, 1, 1}, -1);  // squeeze-excite scale
  Check({3, 16, 12, 12}, {3, 16, 1, 1}, -1);
  Check({2, 16, 24, 24}, {24}, -1);     // last dim
  Check({2, 16, 24, 24}, {1}, -1);      // scalar
  Check({2, 16, 24, 24}, {16, 24}, 1);  // middle dims
  Check({4, 5, 300}, {4, 1, 300}, -1);
  Check({64, 80}, {64, 1}, 0);
}

TEST_P(ElementwiseMkldnn, BroadcastX) {
  Check({16}, {2, 16, 24, 24}, 1);
  Check({1, 16, 1, 1}, {2, 16, 24, 24}, -1);
  Check({4, 1, 300}, {4, 5, 300}, -1);
  Check({4, 5, 1}, {4, 1, 300}, -1);  // both broadcast: PLAIN
}

TEST_P(ElementwiseMkldnn, SmallAndEmpty) {
  Check({3, 4}, {4}, -1);
  Check({0, 4}, {4}, -1);
}

INSTANTIATE_TEST_SUITE_P(Ops,
                         ElementwiseMkldnn,
                         ::testing::Values("elementwise_add",
                                           "elementwise_sub",
                                           "elementwise_mul",
                                           "elementwise_div"));

// One factor per channel, on plain NCHW operands: channel counts below,
// at and past the grouping of short rows (64 floats) and odd ones; pixel
// counts that leave a tail; a factor row per image or one for all; X as
// the factors (swapped).
TEST(ElementwiseMulMkldnn, FactorPerChannel) {
  for (int64_t c : {1, 3, 8, 33, 64, 70}) {
    for (auto hw :
         std::vector<std::pair<int64_t, int64_t>>{{48, 96}, {37, 29}}) {
      const framework::DDim x = {2, c, hw.first, hw.second};
      SCOPED_TRACE("X " + framework::DimsToString(x));
      for (const framework::DDim& y :
           {framework::DDim{2, c, 1, 1}, framework::DDim{1, c, 1, 1}}) {
        for (bool swapped : {false, true}) {
          OpTester t("elementwise_mul");
          t.Input("X", RandomTensor<float>(swapped ? y : x, -2, 2, 41))
              .Input("Y", RandomTensor<float>(swapped ? x : y, -2, 2, 42))
              .Output("Out");
          RunAllKernelsWith(&t, {{"axis", -1}});
        }
      }
    }
  }
}

// A squeeze-and-excitation block, as a graph of `channels` channels: a
// convolution writes its channel-last oneDNN layout, its images' averages
// go through a second convolution (the factors), and elementwise_mul
// scales the first one's output by them (X the features, or swapped).
void CheckSqueezeAndExcitation(int64_t channels, bool features_first) {
  SCOPED_TRACE(std::to_string(channels) + (features_first
                                               ? " channels, X features"
                                               : " channels, X factors"));
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 8, -1, -1});
  auto w1 =
      b.AddParameter("w1", RandomTensor<float>({channels, 8, 1, 1}, -1, 1, 7));
  auto w2 = b.AddParameter(
      "w2", RandomTensor<float>({channels, channels, 1, 1}, -1, 1, 8));
  auto features = b.AddVar("features");
  auto pooled = b.AddVar("pooled");
  auto factors = b.AddVar("factors");
  auto scaled = b.AddVar("scaled");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w1}}},
          {{"Output", {features}}});
  b.AddOp("pool2d", {{"X", {features}}}, {{"Out", {pooled}}},
          {{"pooling_type", std::string("avg")},
           {"global_pooling", true},
           {"ksize", std::vector<int>{1, 1}}});
  b.AddOp("conv2d", {{"Input", {pooled}}, {"Filter", {w2}}},
          {{"Output", {factors}}});
  b.AddOp("elementwise_mul",
          {{"X", {features_first ? features : factors}},
           {"Y", {features_first ? factors : features}}},
          {{"Out", {scaled}}}, {{"axis", -1}});
  b.AddOutput(scaled);
  ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                     {{1, 8, 24, 40},
                                      {3, 8, 13, 7},
                                      {1, 8, 24, 40},
                                      {1, 8, 1, 1},
                                      {1, 8, 7, 7},
                                      {1, 8, 31, 65},
                                      {3, 8, 13, 7}});
}

// One executor (two threads) runs a stream of sizes, some seen before,
// against PLAIN: 24 channels go 2 pixels to a row, 200 one; two threads
// split 7x7 pixels at 25 and 13x7 at 46.
TEST(ElementwiseMulMkldnn, SqueezeAndExcitationOverAStreamOfSizes) {
  for (int64_t channels : {24, 200}) {
    for (bool features_first : {true, false}) {
      CheckSqueezeAndExcitation(channels, features_first);
    }
  }
}

// fused_elementwise_add/mul: the activation as a oneDNN post-op, with
// broadcasting and every fuse_activation.
class FusedElementwiseMkldnn : public ::testing::TestWithParam<std::string> {
 protected:
  void Check(const framework::DDim& x,
             const framework::DDim& y,
             const std::string& activation,
             float alpha,
             float beta) {
    SCOPED_TRACE(GetParam() + " X " + framework::DimsToString(x) + " Y " +
                 framework::DimsToString(y) + " '" + activation + "'");
    OpTester t(GetParam());
    t.Input("X", RandomTensor<float>(x, -3, 3, 211))
        .Input("Y", RandomTensor<float>(y, -3, 3, 212))
        .Output("Out");
    RunAllKernelsWith(&t, {{"fuse_activation", activation},
                           {"fuse_alpha", alpha},
                           {"fuse_beta", beta}});
  }
};

TEST_P(FusedElementwiseMkldnn, HasKernel) { ExpectMkldnnKernel(GetParam()); }

TEST_P(FusedElementwiseMkldnn, Activations) {
  for (const char* act : {"", "relu", "relu6", "leaky_relu", "hard_swish",
                          "sigmoid", "swish", "hard_sigmoid"}) {
    Check({2, 16, 24, 24}, {2, 16, 24, 24}, act, 0.2f, 0.5f);
    Check({2, 16, 24, 24}, {1, 16, 1, 1}, act, 0.2f, 0.5f);
  }
  Check({2, 16, 24, 24}, {16, 24, 24}, "relu6", 0.f, 6.f);
  Check({2, 16, 24, 24}, {16, 24, 24}, "relu6", 0.f, -2.f);  // PLAIN
  Check({1, 16, 1, 1}, {2, 16, 24, 24}, "relu", 0.f, 0.f);   // swapped
  Check({3, 4}, {4}, "relu", 0.f, 0.f);                      // small: PLAIN
}

INSTANTIATE_TEST_SUITE_P(Ops,
                         FusedElementwiseMkldnn,
                         ::testing::Values("fused_elementwise_add",
                                           "fused_elementwise_mul"));

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
