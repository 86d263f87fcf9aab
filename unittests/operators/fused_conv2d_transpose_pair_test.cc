// fused_conv2d_transpose_pair against two conv2d_transpose ops run as
// such (PLAIN): DBNet's head (24 channels up by 2, then to 1 channel up
// by 2), uneven kernels, several images, without biases or activations;
// and the errors of filters that do not chain. Through the MKLDNN kernel:
// plain inputs here (handed to PLAIN), channel-last ones in a graph.
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

struct Stage {
  DDim filter;
  bool bias;
  std::string activation;
};

Tensor Deconv(const Tensor& x,
              const Tensor& filter,
              const Tensor* bias,
              const std::string& activation) {
  OpTester t("conv2d_transpose");
  t.Input("Input", x)
      .Input("Filter", filter)
      .Output("Output")
      .Attr("strides",
            std::vector<int32_t>{static_cast<int32_t>(filter.dims()[2]),
                                 static_cast<int32_t>(filter.dims()[3])})
      .Attr("fuse_activation", activation);
  if (bias != nullptr) t.Input("Bias", *bias);
  t.Run();
  return t.GetOutput("Output");
}

void Check(const DDim& input, const Stage& first, const Stage& second) {
  SCOPED_TRACE("Input " + framework::DimsToString(input) + " Filter " +
               framework::DimsToString(first.filter) + " Filter2 " +
               framework::DimsToString(second.filter));
  const Tensor x = RandomTensor<float>(input, -1, 1, 71);
  const Tensor f1 = RandomTensor<float>(first.filter, -0.5, 0.5, 72);
  const Tensor b1 = RandomTensor<float>({first.filter[1]}, -0.5, 0.5, 73);
  const Tensor f2 = RandomTensor<float>(second.filter, -0.5, 0.5, 74);
  const Tensor b2 = RandomTensor<float>({second.filter[1]}, -0.5, 0.5, 75);
  const Tensor expected =
      Deconv(Deconv(x, f1, first.bias ? &b1 : nullptr, first.activation), f2,
             second.bias ? &b2 : nullptr, second.activation);
  OpTester t("fused_conv2d_transpose_pair");
  t.Input("Input", x)
      .Parameter("Filter", f1)
      .Parameter("Filter2", f2)
      .Output("Output")
      .Attr("fuse_activation", first.activation)
      .Attr("fuse_activation2", second.activation);
  if (first.bias) t.Parameter("Bias", b1);
  if (second.bias) t.Parameter("Bias2", b2);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"), expected, 1e-5, 1e-5);
  t.RunAllKernels(kMkldnnTolerance, kMkldnnTolerance);
}

TEST(FusedConv2DTransposePairOp, MatchesTwoDeconvolutions) {
  // DBNet's head.
  Check({1, 24, 5, 7}, {{24, 24, 2, 2}, true, "relu"},
        {{24, 1, 2, 2}, true, "sigmoid"});
  Check({2, 3, 4, 3}, {{3, 5, 2, 3}, false, ""}, {{5, 2, 3, 1}, true, ""});
  Check({1, 1, 1, 1}, {{1, 1, 1, 1}, true, ""}, {{1, 1, 1, 1}, false, "relu"});
  Check({0, 4, 3, 3}, {{4, 4, 2, 2}, true, ""}, {{4, 1, 2, 2}, true, ""});
}

TEST(FusedConv2DTransposePairOp, FiltersThatDoNotChainAreErrors) {
  auto run = [](const DDim& f1, const DDim& f2, int64_t bias2) {
    OpTester t("fused_conv2d_transpose_pair");
    t.Input("Input", RandomTensor<float>({1, 4, 3, 3}, -1, 1, 1))
        .Input("Filter", RandomTensor<float>(f1, -1, 1, 2))
        .Input("Filter2", RandomTensor<float>(f2, -1, 1, 3))
        .Output("Output");
    if (bias2 > 0) t.Input("Bias2", RandomTensor<float>({bias2}, -1, 1, 4));
    t.Run();
  };
  ExpectError(
      [&] {
        run({3, 4, 2, 2}, {4, 1, 2, 2}, 0);
      },
      ErrorCode::kInvalidArgument,
      {"fused_conv2d_transpose_pair", "Filter must be 4-D [4,"});
  ExpectError(
      [&] {
        run({4, 6, 2, 2}, {4, 1, 2, 2}, 0);
      },
      ErrorCode::kInvalidArgument, {"Filter2 must be 4-D [6,"});
  ExpectError(
      [&] {
        run({4, 6, 2, 2}, {6, 2, 2, 2}, 3);
      },
      ErrorCode::kInvalidArgument, {"Bias2 dims", "(2)"});
  ExpectError(
      [&] {
        run({4, 6, 0, 2}, {6, 2, 2, 2}, 0);
      },
      ErrorCode::kInvalidArgument, {"KH and KW positive"});
}

// DBNet's head after a stem and a 1x1 convolution on our loops (a
// channel-last 24-channel map), over a stream of sizes, against PLAIN;
// with 4 output channels the output is channel-last, which only the
// MKLDNN kernel's own path writes.
TEST(FusedConv2DTransposePairMkldnn, AHeadInAGraphOverAStreamOfSizes) {
  ExpectMkldnnKernel("fused_conv2d_transpose_pair");
  for (int64_t outputs : {1, 4}) {
    SCOPED_TRACE(std::to_string(outputs) + " output channels");
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
    const std::string features = "features";
    AddChannelLastStem(&b, x, 24, features);
    auto f1 =
        b.AddParameter("f1", RandomTensor<float>({24, 24, 2, 2}, -0.3, 0.3, 8));
    auto b1 = b.AddParameter("b1", RandomTensor<float>({24}, -0.3, 0.3, 9));
    auto f2 = b.AddParameter(
        "f2", RandomTensor<float>({24, outputs, 2, 2}, -0.3, 0.3, 10));
    auto b2 =
        b.AddParameter("b2", RandomTensor<float>({outputs}, -0.3, 0.3, 11));
    auto w3 = b.AddParameter(
        "w3", RandomTensor<float>({2, outputs, 1, 1}, -1, 1, 12));
    auto map = b.AddVar("map");
    auto y = b.AddVar("y");
    b.AddOp("fused_conv2d_transpose_pair",
            {{"Input", {features}},
             {"Filter", {f1}},
             {"Bias", {b1}},
             {"Filter2", {f2}},
             {"Bias2", {b2}}},
            {{"Output", {map}}},
            {{"fuse_activation", std::string("relu")},
             {"fuse_activation2", std::string("sigmoid")}});
    // A reader after it, so that the map stays as the kernel wrote it (a
    // fetch would make it plain).
    b.AddOp("conv2d", {{"Input", {map}}, {"Filter", {w3}}}, {{"Output", {y}}});
    b.AddOutput(y);
    const framework::ProgramDesc program = b.Build();
    Runner plain(program, b.parameters(), framework::LibraryType::Plain());
    Runner mkldnn(program, b.parameters(), framework::LibraryType::MKLDNN());
    uint32_t seed = 1;
    for (const DDim& d : std::vector<DDim>{
             {1, 3, 12, 20}, {2, 3, 5, 7}, {1, 3, 12, 20}, {1, 3, 1, 1}}) {
      SCOPED_TRACE("input " + framework::DimsToString(d));
      const auto input = RandomTensor<float>(d, -1, 1, ++seed);
      const auto expected = plain.Run(input);
      const auto got = mkldnn.Run(input);
      ASSERT_EQ(got.size(), 1u);
      ExpectTensorNear(got[0], expected[0], kMkldnnTolerance, kMkldnnTolerance);
      if (outputs > 1 && d[2] * d[3] > 1) ExpectOwnLayouts(mkldnn, {map});
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
