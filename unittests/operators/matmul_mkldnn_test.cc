// matmul (v1) through the MKLDNN kernel against PLAIN: transposes, alpha
// (oneDNN's output scale), batches flattened from different shapes, a 2-D
// operand reused for every batch, 1-D operands.
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x,
           const framework::DDim& y,
           bool trans_x,
           bool trans_y,
           float alpha) {
  SCOPED_TRACE("X " + framework::DimsToString(x) + " Y " +
               framework::DimsToString(y) + " alpha " + std::to_string(alpha));
  RunProductKernels(
      "matmul", RandomTensor<float>(x, -1, 1, 71),
      RandomTensor<float>(y, -1, 1, 72),
      {{"transpose_X", trans_x}, {"transpose_Y", trans_y}, {"alpha", alpha}});
}

TEST(MatmulMkldnn, HasKernel) { ExpectMkldnnKernel("matmul"); }

TEST(MatmulMkldnn, TransposesAndAlpha) {
  Check({13, 37}, {37, 29}, false, false, 1.f);
  Check({37, 13}, {29, 37}, true, true, 0.125f);
  Check({2, 3, 24, 64}, {6, 64, 16}, false, false, 2.f);
  Check({4, 24, 64}, {16, 64}, false, true, 1.f);
  Check({24, 64}, {4, 64, 16}, false, false, -1.5f);
  Check({64}, {3, 64, 5}, false, false, 1.f);
  Check({64}, {64}, false, false, 0.5f);
  // The vectors above at sizes oneDNN runs (at least kSmallMatmulMacs
  // multiply-adds; under it a plain loop runs inside the kernel
  // (RunSmallMatmul)).
  Check({512}, {3, 512, 8}, false, false, 1.f);
  Check({16384}, {16384}, false, false, 0.5f);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
