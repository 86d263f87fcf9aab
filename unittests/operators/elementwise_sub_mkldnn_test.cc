// elementwise_sub through the MKLDNN kernel against PLAIN: equal shapes,
// Paddle's axis broadcasting (per channel, per row, scalar, middle dims),
// X broadcast against Y (swapped for add and mul, else PLAIN), and small
// tensors (PLAIN).
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x, const framework::DDim& y, int axis) {
  SCOPED_TRACE("X " + framework::DimsToString(x) + " Y " +
               framework::DimsToString(y) + " axis " + std::to_string(axis));
  OpTester t("elementwise_sub");
  // Y away from 0 so div stays well conditioned.
  t.Input("X", RandomTensor<float>(x, -2, 2, 31))
      .Input("Y", RandomTensor<float>(y, 0.5, 2, 32))
      .Output("Out");
  RunAllKernelsWith(&t, {{"axis", axis}});
}

TEST(ElementwiseSubMkldnn, HasKernel) { ExpectMkldnnKernel("elementwise_sub"); }

TEST(ElementwiseSubMkldnn, Broadcasting) {
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

TEST(ElementwiseSubMkldnn, BroadcastX) {
  Check({16}, {2, 16, 24, 24}, 1);
  Check({1, 16, 1, 1}, {2, 16, 24, 24}, -1);
  Check({4, 1, 300}, {4, 5, 300}, -1);
  Check({4, 5, 1}, {4, 1, 300}, -1);  // both broadcast: PLAIN
}

TEST(ElementwiseSubMkldnn, SmallAndEmpty) {
  Check({3, 4}, {4}, -1);
  Check({0, 4}, {4}, -1);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
