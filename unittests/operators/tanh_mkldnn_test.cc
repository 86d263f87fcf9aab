// tanh through the MKLDNN kernel against PLAIN, on tensors large enough for
// the oneDNN path (smaller ones run the PLAIN loop).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(TanhMkldnn, HasKernel) { ExpectMkldnnKernel("tanh"); }

TEST(TanhMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    CheckUnaryAllKernels("tanh", RandomTensor<float>(dims, -6, 6));
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
