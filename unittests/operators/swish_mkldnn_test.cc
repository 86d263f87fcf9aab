// swish through the MKLDNN kernel against PLAIN, on tensors large enough for
// the oneDNN path (smaller ones run the PLAIN loop), beta default and given.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(SwishMkldnn, HasKernel) { ExpectMkldnnKernel("swish"); }

TEST(SwishMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -10, 10);
    CheckUnaryAllKernels("swish", x);
    CheckUnaryAllKernels("swish", x, {{"beta", 0.5f}});
    CheckUnaryAllKernels("swish", x, {{"beta", 2.f}});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
