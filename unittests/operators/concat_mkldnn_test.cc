// concat through the MKLDNN kernel against PLAIN along every axis,
// negative axes, AxisTensor, and empty inputs among the others.
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const std::vector<framework::DDim>& dims, int axis) {
  SCOPED_TRACE("axis " + std::to_string(axis));
  std::vector<framework::Tensor> inputs;
  uint32_t seed = 100;
  for (const auto& d : dims)
    inputs.push_back(RandomTensor<float>(d, -1, 1, ++seed));
  OpTester t("concat");
  t.Inputs("X", inputs).Output("Out");
  RunAllKernelsWith(&t, {{"axis", axis}});
}

TEST(ConcatMkldnn, HasKernel) { ExpectMkldnnKernel("concat"); }

TEST(ConcatMkldnn, Axes) {
  Check({{2, 3, 8, 8}, {2, 5, 8, 8}, {2, 1, 8, 8}}, 1);
  Check({{2, 3, 8, 8}, {4, 3, 8, 8}}, 0);
  Check({{2, 3, 8, 5}, {2, 3, 8, 7}}, -1);
  Check({{2, 3, 4, 5}, {2, 3, 6, 5}}, -2);
  Check({{1, 64, 40, 40}, {1, 64, 40, 40}, {1, 64, 40, 40}, {1, 64, 40, 40}},
        1);
  Check({{7, 13}}, 0);
}

TEST(ConcatMkldnn, EmptyInputsAndAxisTensor) {
  Check({{2, 3, 4}, {2, 0, 4}, {2, 2, 4}}, 1);
  Check({{0, 3}, {0, 3}}, 0);
  OpTester t("concat");
  t.Inputs("X", {RandomTensor<float>({2, 3, 4}, -1, 1, 1),
                 RandomTensor<float>({2, 3, 6}, -1, 1, 2)})
      .Input("AxisTensor", MakeTensor<int32_t>({1}, {2}))
      .Output("Out");
  RunAllKernelsWith(&t, {});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
