// leaky_relu through the MKLDNN kernel against PLAIN, on tensors large enough
// for the oneDNN path (smaller ones run the PLAIN loop), alpha default and
// given.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(LeakyReluMkldnn, HasKernel) { ExpectMkldnnKernel("leaky_relu"); }

TEST(LeakyReluMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -3, 3);
    CheckUnaryAllKernels("leaky_relu", x);
    CheckUnaryAllKernels("leaky_relu", x, {{"alpha", 0.25f}});
    CheckUnaryAllKernels("leaky_relu", x, {{"alpha", -1.5f}});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
