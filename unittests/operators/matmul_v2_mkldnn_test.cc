// matmul_v2 through the MKLDNN kernel against PLAIN: transposes, vectors,
// batch broadcasting on either side, empty products.
#include <string>
#include <utility>
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
  RunProductKernels("matmul_v2", RandomTensor<float>(x, -1, 1, 61),
                    RandomTensor<float>(y, -1, 1, 62),
                    {{"trans_x", trans_x}, {"trans_y", trans_y}});
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

// Rows [start, start + count) of `all` along dim 0.
framework::Tensor Rows(const framework::Tensor& all,
                       int64_t start,
                       int64_t count) {
  framework::DDim dims = all.dims();
  const int64_t row = all.numel() / dims[0];
  dims[0] = count;
  framework::Tensor some = MakeTensor<float>(
      dims, std::vector<float>(all.data<float>() + start * row,
                               all.data<float>() + (start + count) * row));
  return some;
}

// With batch invariance a request's rows (dim 0 of X) come out bit for bit
// as they do alone, wherever they sit among others and however many run:
// on both kernels, on one thread and two, for products under
// kSmallMatmulMacs a row and over it, transposed or not, with and
// without a batch dim in X. Without it, oneDNN's and Eigen's blocked
// products round the rows otherwise as their number changes.
TEST(MatmulV2Mkldnn, BatchInvarianceGivesEveryRowItsBitsAlone) {
  struct Case {
    framework::DDim x;  // dim 0: the requests
    framework::DDim y;
    bool trans_x;
    bool trans_y;
  };
  const std::vector<Case> cases = {
      {{16, 200}, {200, 2}, false, false},
      {{16, 1280}, {1280, 3}, false, false},
      {{16, 784}, {784, 64}, false, false},
      {{16, 784}, {64, 784}, false, true},
      {{16, 3, 96}, {96, 100}, false, false},
      {{16, 96, 3}, {96, 100}, true, false},
      {{16, 2, 3, 64}, {2, 64, 200}, false, false}};
  for (const auto& c : cases) {
    for (auto library :
         {framework::LibraryType::MKLDNN(), framework::LibraryType::Plain()}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE("X " + framework::DimsToString(c.x) + " Y " +
                     framework::DimsToString(c.y) + " " + library.name() +
                     " threads " + std::to_string(threads));
        const framework::Tensor x = RandomTensor<float>(c.x, -1, 1, 63);
        const framework::Tensor y = RandomTensor<float>(c.y, -1, 1, 64);
        auto run = [&](int64_t start, int64_t count) {
          OpTester t("matmul_v2");
          t.Input("X", Rows(x, start, count))
              .Input("Y", y)
              .Output("Out")
              .Attr("trans_x", c.trans_x)
              .Attr("trans_y", c.trans_y)
              .BatchInvariant();
          t.Run(library, threads);
          return Rows(t.GetOutput("Out"), 0, count);
        };
        const framework::Tensor all = run(0, 16);
        const int64_t per_request = all.numel() / 16;
        for (auto [start, count] : std::vector<std::pair<int64_t, int64_t>>{
                 {0, 1}, {5, 1}, {15, 1}, {0, 2}, {3, 7}, {1, 15}}) {
          const framework::Tensor some = run(start, count);
          ASSERT_EQ(some.numel(), count * per_request);
          const float* want = all.data<float>() + start * per_request;
          int64_t differ = 0;
          for (int64_t i = 0; i < some.numel(); ++i) {
            differ += some.data<float>()[i] != want[i];
          }
          EXPECT_EQ(differ, 0)
              << "rows " << start << " to " << start + count - 1;
        }
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
