// mul through the MKLDNN kernel against PLAIN: x_num_col_dims and
// y_num_col_dims flattenings, an fc on one sample, empty products.
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x,
           const framework::DDim& y,
           int x_num_col_dims,
           int y_num_col_dims) {
  SCOPED_TRACE("X " + framework::DimsToString(x) + " Y " +
               framework::DimsToString(y));
  RunProductKernels(
      "mul", RandomTensor<float>(x, -1, 1, 81),
      RandomTensor<float>(y, -1, 1, 82),
      {{"x_num_col_dims", x_num_col_dims}, {"y_num_col_dims", y_num_col_dims}});
}

TEST(MulMkldnn, HasKernel) { ExpectMkldnnKernel("mul"); }

TEST(MulMkldnn, Flattening) {
  Check({32, 784}, {784, 200}, 1, 1);
  Check({1, 3136}, {3136, 512}, 1, 1);
  Check({2, 3, 4, 5}, {20, 7}, 2, 1);
  Check({6, 20}, {4, 5, 7}, 1, 2);
  Check({0, 20}, {20, 7}, 1, 1);
  // The two flattenings above at sizes oneDNN runs (at least
  // kSmallMatmulMacs multiply-adds; under it a plain loop runs inside the
  // kernel (RunSmallMatmul)).
  Check({2, 3, 4, 40}, {160, 20}, 2, 1);
  Check({6, 400}, {20, 20, 7}, 1, 2);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
