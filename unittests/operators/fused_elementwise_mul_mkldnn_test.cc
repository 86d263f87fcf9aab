// fused_elementwise_mul through the MKLDNN kernel (the activation as a
// oneDNN post-op) against PLAIN, with broadcasting and every
// fuse_activation.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x,
           const framework::DDim& y,
           const std::string& activation,
           float alpha,
           float beta) {
  SCOPED_TRACE("X " + framework::DimsToString(x) + " Y " +
               framework::DimsToString(y) + " '" + activation + "'");
  OpTester t("fused_elementwise_mul");
  t.Input("X", RandomTensor<float>(x, -3, 3, 211))
      .Input("Y", RandomTensor<float>(y, -3, 3, 212))
      .Output("Out");
  RunAllKernelsWith(&t, {{"fuse_activation", activation},
                         {"fuse_alpha", alpha},
                         {"fuse_beta", beta}});
}

TEST(FusedElementwiseMulMkldnn, HasKernel) {
  ExpectMkldnnKernel("fused_elementwise_mul");
}

TEST(FusedElementwiseMulMkldnn, Activations) {
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

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
