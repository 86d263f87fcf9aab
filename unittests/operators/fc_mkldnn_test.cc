// fc through the MKLDNN kernel (bias and relu inside the matmul primitive)
// against PLAIN: in_num_col_dims, [N] and [1, N] bias, no bias, relu.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& input,
           const framework::DDim& w,
           const framework::DDim& bias,
           int in_num_col_dims,
           const std::string& activation) {
  SCOPED_TRACE("Input " + framework::DimsToString(input) + " W " +
               framework::DimsToString(w) + " '" + activation + "'");
  OpTester t("fc");
  t.Input("Input", RandomTensor<float>(input, -1, 1, 221))
      .Input("W", RandomTensor<float>(w, -1, 1, 222));
  if (!bias.empty()) t.Input("Bias", RandomTensor<float>(bias, -1, 1, 223));
  t.Output("Out");
  RunAllKernelsWith(&t, {{"in_num_col_dims", in_num_col_dims},
                         {"activation_type", activation}});
}

TEST(FcMkldnn, HasKernel) { ExpectMkldnnKernel("fc"); }

TEST(FcMkldnn, Shapes) {
  for (const char* act : {"", "relu"}) {
    Check({32, 784}, {784, 200}, {200}, 1, act);
    Check({1, 1280}, {1280, 3}, {1, 3}, 1, act);
    Check({2, 25, 96}, {96, 48}, {48}, 2, act);
    Check({4, 3, 8, 8}, {192, 10}, {}, 1, act);
    Check({0, 16}, {16, 8}, {8}, 1, act);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
