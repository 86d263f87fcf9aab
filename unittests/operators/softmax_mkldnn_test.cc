// softmax through the MKLDNN kernel against PLAIN over every axis (viewed
// as [outer, n, inner]), negative axes, 1-D and 0-D tensors.
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(SoftmaxMkldnn, HasKernel) { ExpectMkldnnKernel("softmax"); }

TEST(SoftmaxMkldnn, EveryAxis) {
  const auto x = RandomTensor<float>({2, 7, 13, 33}, -10, 10, 41);
  for (int axis : {-1, 0, 1, 2, 3, -3}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    CheckUnaryAllKernels("softmax", x, {{"axis", axis}});
  }
  CheckUnaryAllKernels("softmax", RandomTensor<float>({25, 6625}, -5, 5, 42));
  CheckUnaryAllKernels("softmax", RandomTensor<float>({127}, -5, 5, 43));
  CheckUnaryAllKernels("softmax", RandomTensor<float>({1}, -5, 5, 44));
  // Under kSmallSoftmaxElements PLAIN runs inside the kernel; a 1-D one
  // that oneDNN runs.
  CheckUnaryAllKernels("softmax", RandomTensor<float>({5000}, -5, 5, 45));
}

TEST(SoftmaxMkldnn, ScalarAndEmpty) {
  CheckUnaryAllKernels("softmax", MakeTensor<float>({}, {3.f}));
  CheckUnaryAllKernels("softmax", RandomTensor<float>({0, 5}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
