// sigmoid through the MKLDNN kernel against PLAIN, on tensors large enough for
// the oneDNN path (smaller ones run the PLAIN loop).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(SigmoidMkldnn, HasKernel) { ExpectMkldnnKernel("sigmoid"); }

TEST(SigmoidMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    CheckUnaryAllKernels("sigmoid", RandomTensor<float>(dims, -12, 12));
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
