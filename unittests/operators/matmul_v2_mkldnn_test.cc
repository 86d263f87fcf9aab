// matmul_v2 through the MKLDNN kernel against PLAIN: transposes, vectors,
// batch broadcasting on either side, empty products.
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x,
           const framework::DDim& y,
           bool trans_x,
           bool trans_y) {
  SCOPED_TRACE("X " + framework::DimsToString(x) + " Y " +
               framework::DimsToString(y) + (trans_x ? " trans_x" : "") +
               (trans_y ? " trans_y" : ""));
  OpTester t("matmul_v2");
  t.Input("X", RandomTensor<float>(x, -1, 1, 61))
      .Input("Y", RandomTensor<float>(y, -1, 1, 62))
      .Output("Out");
  RunAllKernelsWith(&t, {{"trans_x", trans_x}, {"trans_y", trans_y}});
}

TEST(MatmulV2Mkldnn, HasKernel) { ExpectMkldnnKernel("matmul_v2"); }

TEST(MatmulV2Mkldnn, Transposes) {
  for (bool tx : {false, true}) {
    for (bool ty : {false, true}) {
      Check(tx ? framework::DDim{37, 13} : framework::DDim{13, 37},
            ty ? framework::DDim{29, 37} : framework::DDim{37, 29}, tx, ty);
      Check(tx ? framework::DDim{3, 2, 64, 24} : framework::DDim{3, 2, 24, 64},
            ty ? framework::DDim{3, 2, 48, 64} : framework::DDim{3, 2, 64, 48},
            tx, ty);
    }
  }
}

TEST(MatmulV2Mkldnn, BroadcastAndVectors) {
  Check({4, 1, 8, 16}, {3, 16, 5}, false, false);
  Check({8, 16}, {2, 3, 16, 5}, false, false);
  Check({2, 1, 8, 16}, {1, 3, 5, 16}, false, true);
  Check({16}, {2, 16, 5}, false, false);
  Check({2, 8, 16}, {16}, false, false);
  Check({16}, {16}, true, true);
  Check({1, 1280}, {1280, 3}, false, false);
  // The same at sizes oneDNN runs (at least kSmallMatmulMacs multiply-adds;
  // under it a plain loop runs inside the kernel (RunSmallMatmul)).
  Check({4, 1, 8, 256}, {3, 256, 5}, false, false);
  Check({8, 256}, {2, 3, 256, 5}, false, false);
  Check({2, 1, 8, 256}, {1, 3, 5, 256}, false, true);
  Check({1024}, {2, 1024, 5}, false, false);
  Check({2, 8, 1024}, {1024}, false, false);
  Check({16384}, {16384}, true, true);
  Check({1, 1280}, {1280, 16}, false, false);
}

TEST(MatmulV2Mkldnn, EmptyProducts) {
  Check({0, 8}, {8, 4}, false, false);
  Check({3, 0}, {0, 4}, false, false);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
