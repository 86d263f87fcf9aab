#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/conv_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using Attrs = std::vector<std::pair<std::string, framework::Attribute>>;

/// Runs pool2d on x with the given attributes and returns Out.
framework::Tensor RunPool(const framework::Tensor& x,
                          const Attrs& attrs,
                          int threads = 1) {
  OpTester t("pool2d");
  t.Input("X", x).Output("Out", x.dtype());
  for (const auto& a : attrs) t.Attr(a.first, a.second);
  t.Run(framework::LibraryType::Plain(), threads);
  framework::Tensor out;
  framework::TensorCopy(t.GetOutput("Out"), platform::CPUPlace{}, &out);
  return out;
}

const std::vector<float> k4x4 = {1, 2,  3,  4,  5,  6,  7,  8,
                                 9, 10, 11, 12, 13, 14, 15, 16};

TEST(Pool2dOp, HandComputedMax) {
  auto out = RunPool(MakeTensor<float>({1, 1, 4, 4}, k4x4),
                     {{"pooling_type", std::string("max")},
                      {"ksize", std::vector<int>{2, 2}},
                      {"strides", std::vector<int>{2, 2}}});
  ExpectTensorNear(out, MakeTensor<float>({1, 1, 2, 2}, {6, 8, 14, 16}));
}

TEST(Pool2dOp, HandComputedDefaultStrideIsOne) {
  // strides and paddings absent: stride 1, no padding.
  auto out = RunPool(MakeTensor<float>({1, 1, 4, 4}, k4x4),
                     {{"pooling_type", std::string("avg")},
                      {"ksize", std::vector<int>{3, 3}}});
  ExpectTensorNear(out, MakeTensor<float>({1, 1, 2, 2}, {6, 7, 10, 11}));
}

TEST(Pool2dOp, HandComputedAvgExclusiveAndNot) {
  auto x = MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attrs attrs = {{"pooling_type", std::string("avg")},
                 {"ksize", std::vector<int>{3, 3}},
                 {"paddings", std::vector<int>{1, 1}},
                 {"strides", std::vector<int>{2, 2}}};
  // exclusive (default): padding is not counted.
  ExpectTensorNear(RunPool(x, attrs),
                   MakeTensor<float>({1, 1, 2, 2}, {3, 4, 6, 7}));
  attrs.push_back({"exclusive", false});
  ExpectTensorNear(RunPool(x, attrs),
                   MakeTensor<float>({1, 1, 2, 2},
                                     {12.f / 9, 16.f / 9, 24.f / 9, 28.f / 9}));
}

TEST(Pool2dOp, HandComputedCeilModeDivisor) {
  // 5x5, 2x2 windows, stride 2, ceil_mode: 3x3 output. The last window
  // row/column has one input pixel; non-exclusive average divides by the
  // window bounded at H + pad_top (here 1 row), not by kh * kw.
  std::vector<float> v(25);
  for (int i = 0; i < 25; ++i) v[i] = static_cast<float>(i);
  auto x = MakeTensor<float>({1, 1, 5, 5}, v);
  Attrs attrs = {{"pooling_type", std::string("avg")},
                 {"ksize", std::vector<int>{2, 2}},
                 {"strides", std::vector<int>{2, 2}},
                 {"ceil_mode", true},
                 {"exclusive", false}};
  ExpectTensorNear(RunPool(x, attrs),
                   MakeTensor<float>({1, 1, 3, 3}, {3, 5, 6.5f, 13, 15, 16.5f,
                                                    20.5f, 22.5f, 24}));
  attrs.push_back({"ceil_mode", false});  // the later value wins
  ExpectTensorNear(RunPool(x, attrs),
                   MakeTensor<float>({1, 1, 2, 2}, {3, 5, 13, 15}));
}

TEST(Pool2dOp, HandComputedGlobalAndAdaptive) {
  auto x = MakeTensor<float>({1, 1, 4, 4}, k4x4);
  // ksize [-1, -1] as saved by Paddle for global pooling.
  ExpectTensorNear(RunPool(x, {{"pooling_type", std::string("avg")},
                               {"ksize", std::vector<int>{-1, -1}},
                               {"global_pooling", true},
                               {"paddings", std::vector<int>{1, 1}}}),
                   MakeTensor<float>({1, 1, 1, 1}, {8.5f}));
  ExpectTensorNear(RunPool(x, {{"pooling_type", std::string("max")},
                               {"ksize", std::vector<int>{1, 1}},
                               {"global_pooling", true}}),
                   MakeTensor<float>({1, 1, 1, 1}, {16}));
  // Adaptive 4 -> 3: windows [0,2), [1,3), [2,4) per dim.
  ExpectTensorNear(
      RunPool(x, {{"pooling_type", std::string("max")},
                  {"ksize", std::vector<int>{3, 3}},
                  {"adaptive", true}}),
      MakeTensor<float>({1, 1, 3, 3}, {6, 7, 8, 10, 11, 12, 14, 15, 16}));
}

TEST(Pool2dOp, MaxWithNegativeInputsIgnoresPadding) {
  auto x = MakeTensor<float>({1, 1, 2, 2}, {-4, -3, -2, -1});
  ExpectTensorNear(RunPool(x, {{"pooling_type", std::string("max")},
                               {"ksize", std::vector<int>{2, 2}},
                               {"paddings", std::vector<int>{1, 1}},
                               {"strides", std::vector<int>{2, 2}}}),
                   MakeTensor<float>({1, 1, 2, 2}, {-4, -3, -2, -1}));
}

struct PoolCase {
  int64_t n = 1, c = 2, h = 7, w = 6;
  std::string type = "max";
  std::vector<int> ksize = {3, 3};
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  bool exclusive = true, adaptive = false, ceil_mode = false, global = false;
  std::string padding_algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
};

/// The spec's §3 rules written out directly, NCHW.
std::vector<double> NaivePool(const PoolCase& k,
                              const std::vector<double>& in,
                              int64_t* oh_out,
                              int64_t* ow_out) {
  int64_t pads[4];
  if (k.paddings.size() == 2) {
    pads[0] = pads[1] = k.paddings[0];
    pads[2] = pads[3] = k.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pads[i] = k.paddings[i];
  }
  int64_t ks[2] = {k.ksize[0], k.ksize[1]};
  const int64_t in_hw[2] = {k.h, k.w};
  const int64_t st[2] = {k.strides[0], k.strides[1]};
  for (int d = 0; d < 2; ++d) {
    if (k.padding_algorithm == "VALID") pads[2 * d] = pads[2 * d + 1] = 0;
    if (k.padding_algorithm == "SAME") {
      int64_t out = (in_hw[d] + st[d] - 1) / st[d];
      int64_t sum = std::max<int64_t>((out - 1) * st[d] + ks[d] - in_hw[d], 0);
      pads[2 * d] = sum / 2;
      pads[2 * d + 1] = sum - sum / 2;
    }
  }
  if (k.global || k.adaptive) std::fill(pads, pads + 4, 0);
  if (k.global) {
    ks[0] = k.h;
    ks[1] = k.w;
  }
  int64_t out[2];
  for (int d = 0; d < 2; ++d) {
    if (k.adaptive) {
      out[d] = ks[d];
    } else {
      int64_t span = in_hw[d] - ks[d] + pads[2 * d] + pads[2 * d + 1];
      out[d] = (span + (k.ceil_mode ? st[d] - 1 : 0)) / st[d] + 1;
    }
  }
  *oh_out = out[0];
  *ow_out = out[1];
  std::vector<double> result(k.n * k.c * out[0] * out[1]);
  for (int64_t p = 0; p < k.n * k.c; ++p)
    for (int64_t y = 0; y < out[0]; ++y)
      for (int64_t x = 0; x < out[1]; ++x) {
        int64_t s[2], e[2], size[2];
        const int64_t o[2] = {y, x};
        for (int d = 0; d < 2; ++d) {
          if (k.adaptive) {
            s[d] = o[d] * in_hw[d] / out[d];
            e[d] = ((o[d] + 1) * in_hw[d] + out[d] - 1) / out[d];
            size[d] = e[d] - s[d];
          } else {
            s[d] = o[d] * st[d] - pads[2 * d];
            e[d] = std::min(s[d] + ks[d], in_hw[d] + pads[2 * d]);
            size[d] = e[d] - s[d];
            s[d] = std::max<int64_t>(s[d], 0);
            e[d] = std::min(e[d], in_hw[d]);
            if (k.exclusive) size[d] = e[d] - s[d];
          }
        }
        double acc = k.type == "max" ? -FLT_MAX : 0.0;
        for (int64_t i = s[0]; i < e[0]; ++i)
          for (int64_t j = s[1]; j < e[1]; ++j) {
            const double v = in[(p * k.h + i) * k.w + j];
            acc = k.type == "max" ? std::max(acc, v) : acc + v;
          }
        if (k.type == "avg") acc /= static_cast<double>(size[0] * size[1]);
        result[(p * out[0] + y) * out[1] + x] = acc;
      }
  return result;
}

template <typename T>
void CheckPoolCase(const PoolCase& k, int threads) {
  SCOPED_TRACE(k.type + " " + k.data_format + " " + k.padding_algorithm +
               (k.adaptive ? " adaptive" : "") + (k.global ? " global" : "") +
               (k.ceil_mode ? " ceil" : "") +
               (k.exclusive ? " exclusive" : "") + " threads " +
               std::to_string(threads));
  auto in = ToVector<T>(RandomTensor<T>({k.n, k.c, k.h, k.w}, -2, 2, 11));
  int64_t oh = 0, ow = 0;
  auto ref = NaivePool(k, std::vector<double>(in.begin(), in.end()), &oh, &ow);
  std::vector<T> expected(ref.begin(), ref.end());
  const bool nhwc = k.data_format == "NHWC";
  framework::Tensor x = nhwc ? MakeTensor<T>({k.n, k.h, k.w, k.c},
                                             NchwToNhwc(in, k.n, k.c, k.h, k.w))
                             : MakeTensor<T>({k.n, k.c, k.h, k.w}, in);
  auto out = RunPool(x,
                     {{"pooling_type", k.type},
                      {"ksize", k.ksize},
                      {"strides", k.strides},
                      {"paddings", k.paddings},
                      {"exclusive", k.exclusive},
                      {"adaptive", k.adaptive},
                      {"ceil_mode", k.ceil_mode},
                      {"global_pooling", k.global},
                      {"padding_algorithm", k.padding_algorithm},
                      {"data_format", k.data_format}},
                     threads);
  if (nhwc) {
    ExpectTensorNear(out,
                     MakeTensor<T>({k.n, oh, ow, k.c},
                                   NchwToNhwc(expected, k.n, k.c, oh, ow)));
  } else {
    ExpectTensorNear(out, MakeTensor<T>({k.n, k.c, oh, ow}, expected));
  }
}

std::vector<PoolCase> PoolCases() {
  std::vector<PoolCase> cases;
  for (std::string type : {"max", "avg"}) {
    for (bool exclusive : {true, false}) {
      PoolCase base;
      base.type = type;
      base.exclusive = exclusive;
      cases.push_back(base);
      PoolCase k = base;
      k.strides = {2, 2};
      k.paddings = {1, 1};
      cases.push_back(k);
      k.ceil_mode = true;
      cases.push_back(k);
      k = base;
      k.ksize = {2, 3};
      k.strides = {2, 2};
      k.paddings = {0, 1, 1, 0};  // asymmetric: only the begin pads matter
      k.ceil_mode = true;
      k.h = 13;
      k.w = 8;
      cases.push_back(k);
      k = base;
      k.paddings = {2, 1, 0, 2};
      k.strides = {3, 2};
      cases.push_back(k);
      k = base;
      k.padding_algorithm = "SAME";
      k.strides = {2, 2};
      k.paddings = {4, 4};  // ignored
      cases.push_back(k);
      k = base;
      k.padding_algorithm = "VALID";
      k.paddings = {1, 1};  // ignored
      k.strides = {2, 1};
      cases.push_back(k);
      k = base;
      k.adaptive = true;
      k.ksize = {3, 4};
      k.paddings = {1, 1};  // zeroed by adaptive
      cases.push_back(k);
      k.ksize = {9, 1};  // more outputs than inputs along H
      cases.push_back(k);
      k = base;
      k.global = true;
      k.ksize = {-1, -1};
      cases.push_back(k);
      k = base;
      k.data_format = "NHWC";
      k.n = 2;
      k.c = 5;
      k.strides = {2, 2};
      k.paddings = {1, 1};
      k.ceil_mode = true;
      cases.push_back(k);
      k.adaptive = true;
      k.ksize = {2, 4};
      cases.push_back(k);
      k = base;
      k.h = 1;
      k.w = 1;
      k.c = 1;
      k.ksize = {1, 1};
      cases.push_back(k);
      // 2x2 windows at stride 2 (the kernel's pairs of columns), an odd
      // width leaving its last column out, then an even one.
      k = base;
      k.ksize = {2, 2};
      k.strides = {2, 2};
      k.w = 37;
      cases.push_back(k);
      k.w = 40;
      k.h = 5;
      cases.push_back(k);
    }
  }
  return cases;
}

TEST(Pool2dOp, MatchesNaiveReference) {
  for (const auto& k : PoolCases()) {
    CheckPoolCase<float>(k, 1);
    CheckPoolCase<float>(k, 3);
    CheckPoolCase<double>(k, 1);
  }
}

// The average over whole planes adds 64 lanes, then 16, then one at a
// time: plane sizes on each side of those steps.
TEST(Pool2dOp, GlobalAverageOfEveryPlaneSize) {
  for (const auto& hw : std::vector<std::pair<int64_t, int64_t>>{{1, 1},
                                                                 {1, 15},
                                                                 {4, 4},
                                                                 {1, 17},
                                                                 {3, 21},
                                                                 {8, 8},
                                                                 {5, 13},
                                                                 {12, 17},
                                                                 {6, 24}}) {
    PoolCase k;
    k.type = "avg";
    k.n = 2;
    k.c = 3;
    k.h = hw.first;
    k.w = hw.second;
    k.adaptive = true;
    k.ksize = {1, 1};
    CheckPoolCase<float>(k, 1);
    CheckPoolCase<float>(k, 2);
    k.adaptive = false;
    k.global = true;
    CheckPoolCase<float>(k, 1);
  }
}

TEST(Pool2dOp, LargeInput) {
  PoolCase k;
  k.n = 2;
  k.c = 16;
  k.h = 127;
  k.w = 64;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  CheckPoolCase<float>(k, 4);
  k.type = "avg";
  k.data_format = "NHWC";
  CheckPoolCase<float>(k, 4);
}

TEST(Pool2dOp, EmptyBatch) {
  auto out = RunPool(MakeTensor<float>({0, 3, 4, 4}, {}),
                     {{"pooling_type", std::string("max")},
                      {"ksize", std::vector<int>{2, 2}},
                      {"strides", std::vector<int>{2, 2}}});
  EXPECT_EQ(out.dims(), (framework::DDim{0, 3, 2, 2}));
}

TEST(Pool2dOp, NoPixelsOfAHostileWidth) {
  // [1, 2, 0, 2^40] pooled globally: every window is empty (max gives
  // -FLT_MAX, as for any empty window), without a scratch row of 2^40.
  auto out = RunPool(MakeTensor<float>({1, 2, 0, int64_t{1} << 40}, {}),
                     {{"pooling_type", std::string("max")},
                      {"global_pooling", true},
                      {"ksize", std::vector<int>{1, 1}}});
  ExpectTensorNear(out, MakeTensor<float>({1, 2, 1, 1}, {-FLT_MAX, -FLT_MAX}));
  // NHWC, adaptive 2x2 output: the same per window.
  out = RunPool(MakeTensor<float>({1, 0, int64_t{1} << 40, 3}, {}),
                {{"pooling_type", std::string("max")},
                 {"adaptive", true},
                 {"data_format", std::string("NHWC")},
                 {"ksize", std::vector<int>{2, 2}}});
  ExpectTensorNear(
      out, MakeTensor<float>({1, 2, 2, 3}, std::vector<float>(12, -FLT_MAX)));
}

TEST(Pool2dOp, RunAllKernels) {
  OpTester t("pool2d");
  t.Input("X", RandomTensor<float>({2, 3, 13, 13}))
      .Output("Out")
      .Attr("pooling_type", std::string("avg"))
      .Attr("ksize", std::vector<int>{3, 3})
      .Attr("strides", std::vector<int>{2, 2})
      .Attr("paddings", std::vector<int>{1, 1});
  t.RunAllKernels();
}

TEST(Pool2dOp, Errors) {
  auto pool = [](framework::DDim dims, Attrs attrs) {
    return [dims, attrs] { RunPool(RandomTensor<float>(dims), attrs); };
  };
  const Attrs max22 = {{"pooling_type", std::string("max")},
                       {"ksize", std::vector<int>{2, 2}}};
  ExpectError(pool({1, 3, 4}, max22), ErrorCode::kInvalidArgument,
              {"pool2d", "4-D", "[1, 3, 4]"});
  ExpectError(pool({1, 3, 4, 4}, {{"pooling_type", std::string("max")},
                                  {"ksize", std::vector<int>{2, 2, 2}}}),
              ErrorCode::kInvalidArgument, {"pool2d", "ksize", "[2, 2, 2]"});
  ExpectError(pool({1, 3, 4, 4}, {{"pooling_type", std::string("min")},
                                  {"ksize", std::vector<int>{2, 2}}}),
              ErrorCode::kInvalidArgument, {"pooling_type", "min"});
  Attrs bad_pad = max22;
  bad_pad.push_back({"paddings", std::vector<int>{1}});
  ExpectError(pool({1, 3, 4, 4}, bad_pad), ErrorCode::kInvalidArgument,
              {"pool2d", "paddings", "[1]"});
  ExpectError(pool({1, 3, 2, 2}, {{"pooling_type", std::string("max")},
                                  {"ksize", std::vector<int>{4, 4}}}),
              ErrorCode::kInvalidArgument,
              {"pool2d", "output size", "[1, 3, 2, 2]"});
  Attrs zero_stride = max22;
  zero_stride.push_back({"strides", std::vector<int>{0, 0}});
  ExpectError(pool({1, 3, 4, 4}, zero_stride), ErrorCode::kInvalidArgument,
              {"pool2d", "strides"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
