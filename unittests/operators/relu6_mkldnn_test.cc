// relu6 through the MKLDNN kernel against PLAIN, on tensors large enough for
// the oneDNN path (smaller ones run the PLAIN loop);
// a negative threshold (PLAIN's rule, not oneDNN's) runs PLAIN.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(Relu6Mkldnn, HasKernel) { ExpectMkldnnKernel("relu6"); }

TEST(Relu6Mkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -9, 9);
    CheckUnaryAllKernels("relu6", x);
    CheckUnaryAllKernels("relu6", x, {{"threshold", 2.5f}});
    CheckUnaryAllKernels("relu6", x, {{"threshold", 0.f}});
    CheckUnaryAllKernels("relu6", x, {{"threshold", -1.f}});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
