// hard_swish through the MKLDNN kernel against PLAIN, on tensors large enough
// for the oneDNN path (smaller ones run the PLAIN loop); attributes other than
// the defaults oneDNN fixes run PLAIN.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(HardSwishMkldnn, HasKernel) { ExpectMkldnnKernel("hard_swish"); }

TEST(HardSwishMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -8, 8);
    CheckUnaryAllKernels("hard_swish", x);
    CheckUnaryAllKernels("hard_swish", x, {{"threshold", 5.f}});
    CheckUnaryAllKernels("hard_swish", x, {{"scale", 4.f}});
    CheckUnaryAllKernels("hard_swish", x, {{"offset", 2.f}});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
