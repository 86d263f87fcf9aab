// pool2d through the MKLDNN kernel against PLAIN: max and average,
// exclusive or not, asymmetric padding, ceil_mode, global and adaptive
// pooling, NHWC; and the cases handed to PLAIN (adaptive windows that are
// not a grid, windows in the padding, clipped non-exclusive divisors, and
// windows for which oneDNN has only its slow generic implementation); and
// averages over whole images and windows over channel-last input, which
// the kernel computes without oneDNN.
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void CheckPool(const framework::DDim& dims, const MkldnnAttrs& attrs) {
  CheckUnaryAllKernels("pool2d", RandomTensor<float>(dims, -4, 4, 21), attrs);
}

TEST(Pool2dMkldnn, HasKernel) { ExpectMkldnnKernel("pool2d"); }

// NHWC input runs on the kernel's own channel-last loop, NCHW on oneDNN
// (but for one channel or one pixel, where NCHW is channel-last too).
TEST(Pool2dMkldnn, MaxAndAverageWindows) {
  for (const std::string type : {"max", "avg"}) {
    for (bool exclusive : {true, false}) {
      for (const std::string format : {"NCHW", "NHWC"}) {
        SCOPED_TRACE(type + (exclusive ? " exclusive " : " inclusive ") +
                     format);
        const MkldnnAttrs base = {{"pooling_type", type},
                                  {"exclusive", exclusive},
                                  {"data_format", format}};
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
                                      {"paddings", std::vector<int>{1, 1}}}));
        CheckPool({1, 3, 10, 10},
                  with({{"ksize", std::vector<int>{2, 2}},
                        {"strides", std::vector<int>{2, 2}},
                        {"padding_algorithm", std::string("SAME")}}));
        // One pixel and one channel; then a window wider than the image.
        CheckPool({1, 1, 1, 1}, with({{"ksize", std::vector<int>{1, 1}}}));
        CheckPool({3, 2, 2, 2}, with({{"ksize", std::vector<int>{2, 3}},
                                      {"strides", std::vector<int>{1, 1}},
                                      {"paddings", std::vector<int>{0, 1}}}));
      }
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

// Averages of whole images, computed without a primitive: one pixel, odd
// channel counts, batches, pixel counts below, at and past the loop's 16
// lanes, exclusive or not, NCHW and NHWC, adaptive 1x1.
TEST(Pool2dMkldnn, WholeImageAverages) {
  for (bool exclusive : {true, false}) {
    for (const std::string format : {"NCHW", "NHWC"}) {
      SCOPED_TRACE(format + (exclusive ? " exclusive" : " inclusive"));
      const MkldnnAttrs global = {{"pooling_type", std::string("avg")},
                                  {"exclusive", exclusive},
                                  {"global_pooling", true},
                                  {"ksize", std::vector<int>{1, 1}},
                                  {"data_format", format}};
      CheckPool({3, 5, 1, 1}, global);
      CheckPool({2, 33, 4, 3}, global);
      CheckPool({1, 17, 4, 4}, global);
      CheckPool({2, 1, 5, 7}, global);
      CheckPool({1, 40, 23, 19}, global);
      CheckPool({0, 4, 3, 3}, global);
      CheckPool({1, 24, 9, 6}, {{"pooling_type", std::string("avg")},
                                {"adaptive", true},
                                {"ksize", std::vector<int>{1, 1}},
                                {"data_format", format}});
    }
  }
}

// A squeeze-and-excitation shape of graph: a convolution writes a
// channel-last oneDNN layout, the average of each image is taken from it
// and read by the next convolution in the layout declared for it. One
// executor (two threads) runs a stream of sizes, some seen before (the
// kept averages replay), against PLAIN.
TEST(Pool2dMkldnn, WholeImageAverageInAGraphOverAStreamOfSizes) {
  // 33 channels: two threads split them at 32, leaving one for the second.
  for (int64_t channels : {40, 33}) {
    SCOPED_TRACE(std::to_string(channels) + " channels");
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 8, -1, -1});
    auto w1 = b.AddParameter(
        "w1", RandomTensor<float>({channels, 8, 1, 1}, -1, 1, 7));
    auto w2 = b.AddParameter(
        "w2", RandomTensor<float>({24, channels, 1, 1}, -1, 1, 8));
    auto y = b.AddVar("y");
    auto pooled = b.AddVar("pooled");
    auto z = b.AddVar("z");
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w1}}}, {{"Output", {y}}});
    b.AddOp("pool2d", {{"X", {y}}}, {{"Out", {pooled}}},
            {{"pooling_type", std::string("avg")},
             {"global_pooling", true},
             {"ksize", std::vector<int>{1, 1}}});
    b.AddOp("conv2d", {{"Input", {pooled}}, {"Filter", {w2}}},
            {{"Output", {z}}});
    b.AddOutput(z);
    b.AddOutput(y);
    ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                       {{1, 8, 7, 9},
                                        {1, 8, 12, 5},
                                        {1, 8, 7, 9},
                                        {2, 8, 1, 1},
                                        {1, 8, 20, 33},
                                        {1, 8, 12, 5},
                                        {1, 8, 7, 9}});
  }
}

// The OCR classifier's end: a convolution writes a channel-last oneDNN
// layout and a max pooling reads it on the kernel's own loop (no
// primitive per size), then an average; a stream of sizes, some seen
// before (the kept loops replay), against PLAIN.
TEST(Pool2dMkldnn, ChannelLastWindowsInAGraphOverAStreamOfSizes) {
  for (int64_t channels : {40, 5}) {
    SCOPED_TRACE(std::to_string(channels) + " channels");
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 8, -1, -1});
    auto w1 = b.AddParameter(
        "w1", RandomTensor<float>({channels, 8, 1, 1}, -1, 1, 7));
    auto w2 = b.AddParameter(
        "w2", RandomTensor<float>({24, channels, 1, 1}, -1, 1, 8));
    auto y = b.AddVar("y");
    auto maxed = b.AddVar("maxed");
    auto averaged = b.AddVar("averaged");
    auto z = b.AddVar("z");
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w1}}}, {{"Output", {y}}});
    b.AddOp("pool2d", {{"X", {y}}}, {{"Out", {maxed}}},
            {{"pooling_type", std::string("max")},
             {"ksize", std::vector<int>{2, 2}},
             {"strides", std::vector<int>{2, 2}},
             {"ceil_mode", true}});
    b.AddOp("pool2d", {{"X", {maxed}}}, {{"Out", {averaged}}},
            {{"pooling_type", std::string("avg")},
             {"ksize", std::vector<int>{3, 3}},
             {"strides", std::vector<int>{1, 2}},
             {"paddings", std::vector<int>{1, 1}}});
    b.AddOp("conv2d", {{"Input", {averaged}}, {"Filter", {w2}}},
            {{"Output", {z}}});
    b.AddOutput(z);
    b.AddOutput(maxed);
    ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                       {{1, 8, 7, 9},
                                        {1, 8, 2, 64},
                                        {1, 8, 7, 9},
                                        {2, 8, 1, 1},
                                        {1, 8, 20, 33},
                                        {1, 8, 2, 64},
                                        {3, 8, 5, 4}});
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
  // A global maximum too wide for oneDNN's vectorized kernel: its generic
  // one is slower than PLAIN, which runs instead.
  CheckPool({1, 8, 160, 160}, {{"pooling_type", std::string("max")},
                               {"global_pooling", true},
                               {"ksize", std::vector<int>{1, 1}}});
  CheckPool({0, 2, 8, 8}, {{"pooling_type", std::string("max")},
                           {"ksize", std::vector<int>{2, 2}},
                           {"strides", std::vector<int>{2, 2}}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
