// hard_sigmoid through the MKLDNN kernel against PLAIN, on tensors large enough
// for the oneDNN path (smaller ones run the PLAIN loop), slope and offset
// default and given.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(HardSigmoidMkldnn, HasKernel) { ExpectMkldnnKernel("hard_sigmoid"); }

TEST(HardSigmoidMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -8, 8);
    CheckUnaryAllKernels("hard_sigmoid", x);
    CheckUnaryAllKernels("hard_sigmoid", x,
                         {{"slope", 0.2f}, {"offset", 0.5f}});
    CheckUnaryAllKernels("hard_sigmoid", x,
                         {{"slope", -0.3f}, {"offset", 0.1f}});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
