#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/conv_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

/// One conv2d_transpose case; input dims given as NCHW, cout is the total
/// number of output channels (Filter is [cin, cout / groups, kh, kw]).
struct TransposeCase {
  int64_t n = 1, cin = 3, h = 5, w = 5;
  int64_t cout = 4, kh = 3, kw = 3;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  std::vector<int> output_padding;
  std::vector<int> output_size;
  int groups = 1;
  std::string padding_algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
  bool bias = false;
};

/// The spec's scatter form (§2.4), written independently of the kernel:
/// every input pixel adds Input * Filter tap at its strided position.
template <typename T>
std::vector<T> NaiveTranspose(const TransposeCase& k,
                              const std::vector<T>& in,
                              const std::vector<T>& filter,
                              const std::vector<T>& bias,
                              int64_t* oh_out,
                              int64_t* ow_out) {
  int64_t pads[4];  // top, bottom, left, right
  if (k.paddings.size() == 2) {
    pads[0] = pads[1] = k.paddings[0];
    pads[2] = pads[3] = k.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pads[i] = k.paddings[i];
  }
  int64_t dil[2] = {k.dilations[0], k.dilations[1]};
  const int64_t in_hw[2] = {k.h, k.w};
  const int64_t ks[2] = {k.kh, k.kw};
  for (int d = 0; d < 2; ++d) {
    const int64_t s = k.strides[d];
    if (k.padding_algorithm == "VALID") {
      pads[2 * d] = pads[2 * d + 1] = 0;
    } else if (k.padding_algorithm == "SAME") {
      const int64_t out = (in_hw[d] + s - 1) / s;
      const int64_t sum =
          std::max<int64_t>((out - 1) * s + ks[d] - in_hw[d], 0);
      pads[2 * d] = sum / 2;
      pads[2 * d + 1] = sum - sum / 2;
      dil[d] = 1;
    }
  }
  int64_t out_hw[2];
  for (int d = 0; d < 2; ++d) {
    out_hw[d] = (in_hw[d] - 1) * k.strides[d] - pads[2 * d] - pads[2 * d + 1] +
                dil[d] * (ks[d] - 1) + 1;
    if (!k.output_size.empty()) {
      out_hw[d] = k.output_size[d];
    } else if (!k.output_padding.empty()) {
      out_hw[d] += k.output_padding[d];
    }
  }
  const int64_t oh = out_hw[0], ow = out_hw[1];
  *oh_out = oh;
  *ow_out = ow;
  const int64_t cin_g = k.cin / k.groups, cout_g = k.cout / k.groups;
  std::vector<double> acc(k.n * k.cout * oh * ow, 0.0);
  for (int64_t b = 0; b < k.n; ++b)
    for (int64_t ci = 0; ci < k.cin; ++ci)
      for (int64_t y = 0; y < k.h; ++y)
        for (int64_t x = 0; x < k.w; ++x) {
          const double v = in[((b * k.cin + ci) * k.h + y) * k.w + x];
          const int64_t g = ci / cin_g;
          for (int64_t co = 0; co < cout_g; ++co)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t oy = y * k.strides[0] - pads[0] + i * dil[0];
                const int64_t ox = x * k.strides[1] - pads[2] + j * dil[1];
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                acc[((b * k.cout + g * cout_g + co) * oh + oy) * ow + ox] +=
                    v * filter[((ci * cout_g + co) * k.kh + i) * k.kw + j];
              }
        }
  std::vector<T> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t c = (i / (oh * ow)) % k.cout;
    out[i] = static_cast<T>(acc[i] + (bias.empty() ? 0.0 : bias[c]));
  }
  return out;
}

OpTester MakeTester(const TransposeCase& k,
                    const framework::Tensor& input,
                    const framework::Tensor& filter) {
  OpTester t("conv2d_transpose");
  t.Input("Input", input)
      .Input("Filter", filter)
      .Output("Output", input.dtype())
      .Attr("strides", k.strides)
      .Attr("paddings", k.paddings)
      .Attr("dilations", k.dilations)
      .Attr("groups", k.groups)
      .Attr("padding_algorithm", k.padding_algorithm)
      .Attr("data_format", k.data_format)
      .Attr("output_padding", k.output_padding)
      .Attr("output_size", k.output_size);
  return t;
}

template <typename T>
void CheckCase(const TransposeCase& k, int threads = 1, uint32_t seed = 3) {
  SCOPED_TRACE(k.data_format + " " + k.padding_algorithm + " groups " +
               std::to_string(k.groups) + " threads " +
               std::to_string(threads) + " size " + std::to_string(k.h) + "x" +
               std::to_string(k.w));
  const bool nhwc = k.data_format == "NHWC";
  auto in = ToVector<T>(RandomTensor<T>({k.n, k.cin, k.h, k.w}, -1, 1, seed));
  const framework::DDim filter_dims = {k.cin, k.cout / k.groups, k.kh, k.kw};
  auto filter = ToVector<T>(RandomTensor<T>(filter_dims, -1, 1, seed + 1));
  std::vector<T> bias;
  if (k.bias) bias = ToVector<T>(RandomTensor<T>({k.cout}, -1, 1, seed + 2));
  int64_t oh = 0, ow = 0;
  auto expected = NaiveTranspose(k, in, filter, bias, &oh, &ow);

  framework::Tensor input =
      nhwc ? MakeTensor<T>({k.n, k.h, k.w, k.cin},
                           NchwToNhwc(in, k.n, k.cin, k.h, k.w))
           : MakeTensor<T>({k.n, k.cin, k.h, k.w}, in);
  OpTester t = MakeTester(k, input, MakeTensor<T>(filter_dims, filter));
  if (k.bias) t.Input("Bias", MakeTensor<T>({k.cout}, bias));
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-10;
  if (nhwc) {
    ExpectTensorNear(t.GetOutput("Output"),
                     MakeTensor<T>({k.n, oh, ow, k.cout},
                                   NchwToNhwc(expected, k.n, k.cout, oh, ow)),
                     tol, tol);
  } else {
    ExpectTensorNear(t.GetOutput("Output"),
                     MakeTensor<T>({k.n, k.cout, oh, ow}, expected), tol, tol);
  }
}

TEST(Conv2dTransposeOp, HandComputedWithDefaultAttributes) {
  // Each input pixel stamps the 2x2 filter of ones at its own position:
  // overlapping stamps add up.
  OpTester t("conv2d_transpose");
  t.Input("Input", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}))
      .Input("Filter", MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 1}))
      .Output("Output");
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Output"),
      MakeTensor<float>({1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4}));
}

TEST(Conv2dTransposeOp, HandComputedStrideTwoWithOutputPadding) {
  // Stride 2 with a 1x1 filter of 2 spreads the pixels apart; the gaps and
  // the extra row/column from output_padding receive nothing.
  OpTester t("conv2d_transpose");
  t.Input("Input", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}))
      .Input("Filter", MakeTensor<float>({1, 1, 1, 1}, {2}))
      .Output("Output")
      .Attr("strides", std::vector<int>{2, 2})
      .Attr("output_padding", std::vector<int>{1, 1});
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 4, 4}, {2, 0, 4, 0,  //
                                                    0, 0, 0, 0,  //
                                                    6, 0, 8, 0,  //
                                                    0, 0, 0, 0}));
}

std::vector<TransposeCase> TransposeCases() {
  std::vector<TransposeCase> cases;
  TransposeCase base;
  cases.push_back(base);
  TransposeCase k = base;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  cases.push_back(k);
  k.output_padding = {1, 0};
  cases.push_back(k);
  k = base;
  k.strides = {2, 3};
  k.kh = 4;
  k.kw = 4;
  k.paddings = {1, 1};
  k.output_size = {10, 14};  // infer is [10, 14]: any of [10, 12) x [14, 17)
  cases.push_back(k);
  k.output_size = {11, 16};
  cases.push_back(k);
  k = base;
  k.paddings = {0, 2, 1, 0};  // asymmetric [top, bottom, left, right]
  k.strides = {2, 1};
  k.h = 7;
  k.w = 6;
  cases.push_back(k);
  k = base;
  k.dilations = {2, 3};
  k.paddings = {1, 2};
  k.h = 6;
  k.w = 7;
  cases.push_back(k);
  k.strides = {2, 2};
  k.output_padding = {1, 2};  // < max(stride, dilation) = 2 and 3
  cases.push_back(k);
  k = base;
  k.cin = 4;
  k.cout = 6;
  k.groups = 2;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.cin = 6;
  k.cout = 6;
  k.groups = 6;  // depthwise transpose
  k.kh = k.kw = 4;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "SAME";
  k.strides = {2, 2};
  k.dilations = {3, 3};  // forced to 1 under SAME
  k.paddings = {4, 4};   // ignored under SAME
  k.h = 7;
  k.w = 6;
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "VALID";
  k.paddings = {2, 2};  // ignored
  k.strides = {3, 2};
  cases.push_back(k);
  k = base;
  k.kh = k.kw = 1;
  k.cin = 5;
  k.cout = 7;
  k.h = 13;
  k.w = 3;
  cases.push_back(k);
  k = base;
  k.n = 2;
  k.h = 1;
  k.w = 1;  // 1-pixel input: the output is the filter times the pixel
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.kh = 2;
  k.kw = 5;  // non-square filter
  k.strides = {2, 2};
  k.h = 9;
  k.w = 4;
  cases.push_back(k);
  k = base;
  k.data_format = "NHWC";
  k.n = 2;
  k.strides = {2, 2};
  k.paddings = {1, 0, 0, 1};
  k.output_padding = {1, 1};
  cases.push_back(k);
  k.cin = 6;
  k.cout = 3;
  k.groups = 3;
  k.bias = true;
  cases.push_back(k);
  return cases;
}

TEST(Conv2dTransposeOp, MatchesNaiveScatterFloat) {
  for (const auto& k : TransposeCases()) CheckCase<float>(k);
}

TEST(Conv2dTransposeOp, MatchesNaiveScatterDouble) {
  for (const auto& k : TransposeCases()) CheckCase<double>(k);
}

TEST(Conv2dTransposeOp, TwoThreadsSplitBandsAndChannels) {
  // Tall inputs with overlapping taps (k > stride) run as several bands in
  // two phases; the result must not depend on the split.
  for (auto k : TransposeCases()) {
    k.h = 37;
    k.w = 11;
    k.output_size.clear();
    CheckCase<float>(k, /*threads=*/2);
  }
  TransposeCase k;
  k.cin = 8;
  k.cout = 16;
  k.kh = k.kw = 4;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  k.h = 61;
  k.w = 47;
  CheckCase<float>(k, /*threads=*/2);
  CheckCase<float>(k, /*threads=*/1);
  k.dilations = {3, 1};
  k.kh = 5;
  k.strides = {1, 1};
  CheckCase<float>(k, /*threads=*/2);
}

TEST(Conv2dTransposeOp, WideImageBlocksOutputChannels) {
  // 64 channels x 16 taps x 2 rows x 130 columns overflow the column
  // buffer budget even for the smallest band: output channels are blocked.
  TransposeCase k;
  k.cin = 4;
  k.cout = 64;
  k.kh = k.kw = 4;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  k.h = 6;
  k.w = 130;
  CheckCase<float>(k);
  k.cout = 66;  // channel blocks of unequal size
  k.groups = 2;
  CheckCase<float>(k, /*threads=*/2);
}

TEST(Conv2dTransposeOp, LargeDetectorUpsample) {
  // The shape of a detector's 2x upsampling head: 2x2 stride 2 (no
  // overlap) on a 120x120 map.
  TransposeCase k;
  k.cin = 16;
  k.cout = 8;
  k.kh = k.kw = 2;
  k.strides = {2, 2};
  k.h = 120;
  k.w = 120;
  CheckCase<float>(k, /*threads=*/2);
}

TEST(Conv2dTransposeOp, EmptyBatch) {
  TransposeCase k;
  k.n = 0;
  OpTester t = MakeTester(k, MakeTensor<float>({0, 3, 5, 5}, {}),
                          RandomTensor<float>({3, 4, 3, 3}));
  t.Run();
  EXPECT_EQ(t.GetOutput("Output").dims(), (framework::DDim{0, 4, 7, 7}));
}

TEST(Conv2dTransposeOp, RunAllKernels) {
  TransposeCase k;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  OpTester t = MakeTester(k, RandomTensor<float>({2, 3, 6, 5}),
                          RandomTensor<float>({3, 4, 3, 3}, -1, 1, 5));
  t.RunAllKernels(1e-4, 1e-4);
}

TEST(Conv2dTransposeOp, RejectsFilterChannelMismatch) {
  TransposeCase k;
  OpTester t = MakeTester(k, RandomTensor<float>({1, 3, 5, 5}),
                          RandomTensor<float>({4, 2, 3, 3}));
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "[4, 2, 3, 3]", "[1, 3, 5, 5]"});
}

TEST(Conv2dTransposeOp, RejectsGroupsNotDividingChannels) {
  TransposeCase k;
  k.groups = 2;
  OpTester t = MakeTester(k, RandomTensor<float>({1, 3, 5, 5}),
                          RandomTensor<float>({3, 2, 3, 3}));
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "groups 2"});
}

TEST(Conv2dTransposeOp, RejectsOutputSizeOutsideStride) {
  // Input 5, stride 2, kernel 3, no padding: infer = 11, so 11 and 12 are
  // valid, 13 and 10 are not.
  for (int bad : {10, 13}) {
    TransposeCase k;
    k.strides = {2, 2};
    k.output_size = {bad, 11};
    OpTester t = MakeTester(k, RandomTensor<float>({1, 3, 5, 5}),
                            RandomTensor<float>({3, 4, 3, 3}));
    ExpectError(
        [&] { t.Run(); }, ErrorCode::kInvalidArgument,
        {"conv2d_transpose", "output_size", "11 <= output_size[0] < 13"});
  }
}

TEST(Conv2dTransposeOp, RejectsOutputPaddingTooLarge) {
  TransposeCase k;
  k.strides = {2, 2};
  k.output_padding = {0, 2};
  OpTester t = MakeTester(k, RandomTensor<float>({1, 3, 5, 5}),
                          RandomTensor<float>({3, 4, 3, 3}));
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "output_padding", "max(stride, dilation)"});
}

TEST(Conv2dTransposeOp, RejectsBadPaddingsAndShapes) {
  TransposeCase k;
  k.paddings = {1, 1, 1};
  OpTester t = MakeTester(k, RandomTensor<float>({1, 3, 5, 5}),
                          RandomTensor<float>({3, 4, 3, 3}));
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "paddings"});

  TransposeCase k2;
  OpTester t2 = MakeTester(k2, RandomTensor<float>({3, 5, 5}),
                           RandomTensor<float>({3, 4, 3, 3}));
  ExpectError([&] { t2.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "4-D", "[3, 5, 5]"});

  // Paddings that remove more than the transpose produces.
  TransposeCase k3;
  k3.paddings = {3, 3};
  OpTester t3 = MakeTester(k3, RandomTensor<float>({1, 3, 2, 2}),
                           RandomTensor<float>({3, 4, 3, 3}));
  ExpectError([&] { t3.Run(); }, ErrorCode::kInvalidArgument,
              {"conv2d_transpose", "not positive"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
