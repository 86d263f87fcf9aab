// pool2d through the MKLDNN kernel against PLAIN: max and average,
// exclusive or not, asymmetric padding, ceil_mode, global and adaptive
// pooling, NHWC; and the cases handed to PLAIN (adaptive windows that are
// not a grid, windows in the padding, clipped non-exclusive divisors, and
// windows for which oneDNN has only its slow generic implementation).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void CheckPool(const framework::DDim& dims, const MkldnnAttrs& attrs) {
  CheckUnaryAllKernels("pool2d", RandomTensor<float>(dims, -4, 4, 21), attrs);
}

TEST(Pool2dMkldnn, HasKernel) { ExpectMkldnnKernel("pool2d"); }

TEST(Pool2dMkldnn, MaxAndAverageWindows) {
  for (const std::string type : {"max", "avg"}) {
    for (bool exclusive : {true, false}) {
      SCOPED_TRACE(type + (exclusive ? " exclusive" : " inclusive"));
      const MkldnnAttrs base = {{"pooling_type", type},
                                {"exclusive", exclusive}};
      auto with = [&](MkldnnAttrs more) {
        MkldnnAttrs all = base;
        all.insert(all.end(), more.begin(), more.end());
        return all;
      };
      CheckPool({2, 3, 13, 13}, with({{"ksize", std::vector<int>{3, 3}},
                                      {"strides", std::vector<int>{2, 2}},
                                      {"paddings", std::vector<int>{1, 1}}}));
      CheckPool({1, 5, 12, 9}, with({{"ksize", std::vector<int>{2, 3}},
                                     {"strides", std::vector<int>{2, 1}}}));
      CheckPool({1, 4, 11, 10},
                with({{"ksize", std::vector<int>{3, 3}},
                      {"strides", std::vector<int>{2, 2}},
                      {"paddings", std::vector<int>{0, 2, 1, 0}}}));
      CheckPool({1, 4, 11, 10}, with({{"ksize", std::vector<int>{3, 2}},
                                      {"strides", std::vector<int>{2, 2}},
                                      {"ceil_mode", true}}));
      CheckPool({1, 4, 12, 12}, with({{"ksize", std::vector<int>{3, 3}},
                                      {"strides", std::vector<int>{3, 3}},
                                      {"paddings", std::vector<int>{1, 1}},
                                      {"ceil_mode", true}}));
      CheckPool({2, 6, 9, 7}, with({{"ksize", std::vector<int>{3, 3}},
                                    {"strides", std::vector<int>{2, 2}},
                                    {"paddings", std::vector<int>{1, 1}},
                                    {"data_format", std::string("NHWC")}}));
      CheckPool({1, 3, 10, 10},
                with({{"ksize", std::vector<int>{2, 2}},
                      {"strides", std::vector<int>{2, 2}},
                      {"padding_algorithm", std::string("SAME")}}));
    }
  }
}

TEST(Pool2dMkldnn, GlobalAndAdaptive) {
  for (const std::string type : {"max", "avg"}) {
    SCOPED_TRACE(type);
    CheckPool({2, 16, 7, 9}, {{"pooling_type", type},
                              {"global_pooling", true},
                              {"ksize", std::vector<int>{-1, -1}}});
    CheckPool({1, 8, 8, 6}, {{"pooling_type", type},
                             {"global_pooling", true},
                             {"ksize", std::vector<int>{1, 1}},
                             {"data_format", std::string("NHWC")}});
    // A grid: 12 / 3 and 6 / 2.
    CheckPool({1, 8, 12, 6}, {{"pooling_type", type},
                              {"adaptive", true},
                              {"ksize", std::vector<int>{3, 2}}});
    // Not a grid: PLAIN runs.
    CheckPool({1, 8, 13, 7}, {{"pooling_type", type},
                              {"adaptive", true},
                              {"ksize", std::vector<int>{3, 2}}});
    CheckPool({1, 8, 13, 7}, {{"pooling_type", type},
                              {"adaptive", true},
                              {"ksize", std::vector<int>{1, 1}}});
  }
}

TEST(Pool2dMkldnn, CasesLeftToPlain) {
  // Padding as large as the window: windows wholly in the padding.
  CheckPool({1, 2, 5, 5}, {{"pooling_type", std::string("max")},
                           {"ksize", std::vector<int>{2, 2}},
                           {"strides", std::vector<int>{1, 1}},
                           {"paddings", std::vector<int>{2, 2}}});
  // Non-exclusive average whose last window Paddle clips to in + pad_top.
  CheckPool({1, 2, 7, 7}, {{"pooling_type", std::string("avg")},
                           {"exclusive", false},
                           {"ksize", std::vector<int>{3, 3}},
                           {"strides", std::vector<int>{2, 2}},
                           {"paddings", std::vector<int>{0, 2, 0, 2}}});
  CheckPool({1, 2, 8, 8}, {{"pooling_type", std::string("avg")},
                           {"exclusive", false},
                           {"ksize", std::vector<int>{3, 3}},
                           {"strides", std::vector<int>{2, 2}},
                           {"ceil_mode", true}});
  // A global average too wide for oneDNN's vectorized kernel: its generic
  // one is slower than PLAIN, which runs instead.
  CheckPool({1, 8, 160, 160}, {{"pooling_type", std::string("avg")},
                               {"global_pooling", true},
                               {"ksize", std::vector<int>{1, 1}}});
  CheckPool({0, 2, 8, 8}, {{"pooling_type", std::string("max")},
                           {"ksize", std::vector<int>{2, 2}},
                           {"strides", std::vector<int>{2, 2}}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
