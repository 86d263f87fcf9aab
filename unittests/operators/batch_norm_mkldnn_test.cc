// batch_norm through the MKLDNN kernel against PLAIN with running
// statistics (is_test, use_global_stats) for ranks 2 to 5 and NHWC; batch
// statistics (training mode) run PLAIN.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void CheckBatchNorm(const framework::DDim& x,
                    int64_t channels,
                    const MkldnnAttrs& attrs) {
  SCOPED_TRACE("X " + framework::DimsToString(x));
  OpTester t("batch_norm");
  t.Input("X", RandomTensor<float>(x, -3, 3, 51))
      .Input("Scale", RandomTensor<float>({channels}, 0.5, 2, 52))
      .Input("Bias", RandomTensor<float>({channels}, -1, 1, 53))
      .Input("Mean", RandomTensor<float>({channels}, -1, 1, 54))
      .Input("Variance", RandomTensor<float>({channels}, 0.1, 2, 55))
      .Output("Y");
  RunAllKernelsWith(&t, attrs);
}

TEST(BatchNormMkldnn, HasKernel) { ExpectMkldnnKernel("batch_norm"); }

TEST(BatchNormMkldnn, RunningStatistics) {
  const MkldnnAttrs test = {{"is_test", true}, {"epsilon", 1e-3f}};
  CheckBatchNorm({2, 16, 13, 11}, 16, test);
  CheckBatchNorm({8, 24}, 24, test);
  CheckBatchNorm({2, 5, 17}, 5, test);
  CheckBatchNorm({1, 4, 3, 5, 7}, 4, test);
  CheckBatchNorm({2, 13, 11, 16}, 16,
                 {{"is_test", true}, {"data_layout", std::string("NHWC")}});
  CheckBatchNorm({2, 7, 6}, 6,
                 {{"is_test", true}, {"data_layout", std::string("NHWC")}});
  CheckBatchNorm({2, 16, 13, 11}, 16, {{"use_global_stats", true}});
}

TEST(BatchNormMkldnn, BatchStatisticsRunPlain) {
  CheckBatchNorm({4, 3, 5, 5}, 3, {{"is_test", false}});
  CheckBatchNorm({0, 3, 5, 5}, 3, {{"is_test", true}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
