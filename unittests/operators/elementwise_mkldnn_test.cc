// elementwise_add/sub/mul/div through the MKLDNN kernel against PLAIN:
// equal shapes, Paddle's axis broadcasting (per channel, per row, scalar,
// middle dims), X broadcast against Y (swapped for add and mul, else
// PLAIN), and small tensors (PLAIN). One suite, instantiated per op type.
#include <string>
#include <vector>

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
