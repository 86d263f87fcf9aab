// fused_conv2d: conv2d followed by each activation, checked against the
// conv2d op followed by the standalone activation op.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Attribute;
using framework::DataType;
using framework::DDim;

struct ConvActivation {
  std::string type;  // standalone op type = fuse_activation value
  std::vector<std::pair<std::string, Attribute>> op_attrs;
  float fuse_alpha;
  float fuse_beta;
};

std::vector<ConvActivation> Activations() {
  return {
      {"relu", {}, 0, 0},
      {"relu6", {{"threshold", 1.5f}}, 0, 1.5f},
      {"leaky_relu", {{"alpha", 0.15f}}, 0.15f, 0},
      {"hard_swish", {}, 0, 0},
      {"sigmoid", {}, 0, 0},
      {"swish", {{"beta", 0.8f}}, 0.8f, 0},
      {"hard_sigmoid", {{"slope", 0.25f}, {"offset", 0.4f}}, 0.25f, 0.4f},
  };
}

struct Shape {
  const char* name;
  DDim input;
  DDim filter;
  std::vector<std::pair<std::string, Attribute>> attrs;
  bool bias;
};

std::vector<Shape> Shapes() {
  return {
      {"3x3 pad 1",
       {2, 3, 7, 6},
       {4, 3, 3, 3},
       {{"paddings", std::vector<int>{1, 1}}},
       false},
      {"odd sizes, stride 2, bias",
       {1, 5, 13, 11},
       {6, 5, 3, 3},
       {{"strides", std::vector<int>{2, 2}},
        {"paddings", std::vector<int>{0, 1, 1, 0}}},
       true},
      {"depthwise",
       {1, 4, 9, 9},
       {8, 1, 3, 3},
       {{"groups", 4}, {"paddings", std::vector<int>{1, 1}}},
       true},
      {"NHWC 1x1",
       {2, 5, 5, 3},
       {2, 3, 1, 1},
       {{"data_format", std::string("NHWC")}},
       false},
      {"single element", {1, 1, 1, 1}, {1, 1, 1, 1}, {}, true},
      {"empty batch", {0, 3, 5, 5}, {2, 3, 3, 3}, {}, false},
  };
}

TEST(FusedConv2dOp, MatchesConvThenActivation) {
  for (const Shape& s : Shapes()) {
    for (const ConvActivation& a : Activations()) {
      SCOPED_TRACE(std::string(s.name) + ", " + a.type);
      const auto input = RandomTensor<float>(s.input, -2, 2, 1);
      const auto filter = RandomTensor<float>(s.filter, -1, 1, 2);
      const auto bias = RandomTensor<float>({s.filter[0]}, -1, 1, 3);

      OpTester conv("conv2d");
      conv.Input("Input", input).Input("Filter", filter).Output("Output");
      OpTester fused("fused_conv2d");
      fused.Input("Input", input).Input("Filter", filter).Output("Output");
      if (s.bias) {
        conv.Input("Bias", bias);
        fused.Input("Bias", bias);
      }
      for (auto& kv : s.attrs) {
        conv.Attr(kv.first, kv.second);
        fused.Attr(kv.first, kv.second);
      }
      fused.Attr("fuse_activation", a.type)
          .Attr("fuse_alpha", a.fuse_alpha)
          .Attr("fuse_beta", a.fuse_beta);
      conv.Run();
      OpTester act(a.type);
      act.Input("X", conv.GetOutput("Output")).Output("Out");
      for (auto& kv : a.op_attrs) act.Attr(kv.first, kv.second);
      act.Run();
      fused.Run();
      ExpectTensorNear(fused.GetOutput("Output"), act.GetOutput("Out"));
    }
  }
}

TEST(FusedConv2dOp, HandComputedRelu6AndDefaults) {
  // Centre tap times 2 with bias -3 on 1..4 (padding 1 keeps 2x2):
  // 2x - 3 = -1, 1, 3, 5, clipped to [0, 2].
  OpTester t("fused_conv2d");
  t.Input("Input", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}))
      .Input("Filter",
             MakeTensor<float>({1, 1, 3, 3}, {0, 0, 0, 0, 2, 0, 0, 0, 0}))
      .Input("Bias", MakeTensor<float>({1}, {-3}))
      .Output("Output")
      .Attr("paddings", std::vector<int>{1, 1})
      .Attr("fuse_activation", std::string("relu6"))
      .Attr("fuse_beta", 2.0f);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 2, 2}, {0, 1, 2, 2}));

  // No fuse_* attribute: a plain convolution.
  OpTester plain("fused_conv2d");
  plain.Input("Input", MakeTensor<float>({1, 1, 2, 2}, {1, -2, 3, 4}))
      .Input("Filter", MakeTensor<float>({1, 1, 1, 1}, {-1}))
      .Output("Output");
  plain.Run();
  ExpectTensorNear(plain.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 2, 2}, {-1, 2, -3, -4}));
}

TEST(FusedConv2dOp, Double) {
  OpTester t("fused_conv2d");
  t.Input("Input", MakeTensor<double>({1, 1, 1, 3}, {-1, 0.5, 2}))
      .Input("Filter", MakeTensor<double>({1, 1, 1, 1}, {2}))
      .Output("Output", DataType::kFloat64)
      .Attr("fuse_activation", std::string("leaky_relu"))
      .Attr("fuse_alpha", 0.5f);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<double>({1, 1, 1, 3}, {-1, 1, 4}));
}

TEST(FusedConv2dOp, AllKernels) {
  OpTester t("fused_conv2d");
  t.Input("Input", RandomTensor<float>({2, 3, 13, 11}, -2, 2, 4))
      .Input("Filter", RandomTensor<float>({5, 3, 3, 3}, -1, 1, 5))
      .Input("Bias", RandomTensor<float>({5}, -1, 1, 6))
      .Output("Output")
      .Attr("strides", std::vector<int>{2, 1})
      .Attr("paddings", std::vector<int>{1, 1})
      .Attr("fuse_activation", std::string("hard_swish"));
  t.RunAllKernels();
}

TEST(FusedConv2dOp, ResidualIsAddedBeforeTheActivation) {
  // 1x1 filter 2, bias -1, residual: relu(2x - 1 + r).
  OpTester t("fused_conv2d");
  t.Input("Input", MakeTensor<float>({1, 1, 2, 2}, {1, 2, -3, 0}))
      .Input("Filter", MakeTensor<float>({1, 1, 1, 1}, {2}))
      .Input("Bias", MakeTensor<float>({1}, {-1}))
      .Input("ResidualData", MakeTensor<float>({1, 1, 2, 2}, {-2, 1, 10, 0.5}))
      .Output("Output")
      .Attr("fuse_activation", std::string("relu"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 2, 2}, {0, 4, 3, 0}));
}

TEST(FusedConv2dOp, ResidualAllKernels) {
  // Channels that do not fill oneDNN's blocks of 16, NCHW and NHWC, with
  // and without an activation after the residual.
  for (const char* format : {"NCHW", "NHWC"}) {
    for (const char* act : {"", "hard_swish"}) {
      SCOPED_TRACE(std::string(format) + " '" + act + "'");
      const bool nhwc = std::string(format) == "NHWC";
      OpTester t("fused_conv2d");
      t.Input("Input", RandomTensor<float>(nhwc ? framework::DDim{2, 9, 7, 20}
                                                : framework::DDim{2, 20, 9, 7},
                                           -2, 2, 4))
          .Input("Filter", RandomTensor<float>({24, 20, 3, 3}, -1, 1, 5))
          .Input("Bias", RandomTensor<float>({24}, -1, 1, 6))
          .Input("ResidualData",
                 RandomTensor<float>(nhwc ? framework::DDim{2, 9, 7, 24}
                                          : framework::DDim{2, 24, 9, 7},
                                     -3, 3, 7))
          .Output("Output")
          .Attr("paddings", std::vector<int>{1, 1})
          .Attr("data_format", std::string(format))
          .Attr("fuse_activation", std::string(act));
      t.RunAllKernels(1e-4, 1e-4);
    }
  }
}

TEST(FusedConv2dOp, Errors) {
  OpTester bad_act("fused_conv2d");
  bad_act.Input("Input", RandomTensor<float>({1, 3, 5, 5}))
      .Input("Filter", RandomTensor<float>({2, 3, 3, 3}))
      .Output("Output")
      .Attr("fuse_activation", std::string("tanh"));
  ExpectError([&] { bad_act.Run(); }, ErrorCode::kInvalidArgument,
              {"fuse_activation", "tanh"});

  OpTester bad_filter("fused_conv2d");
  bad_filter.Input("Input", RandomTensor<float>({1, 4, 5, 5}))
      .Input("Filter", RandomTensor<float>({2, 3, 3, 3}))
      .Output("Output")
      .Attr("fuse_activation", std::string("relu"));
  ExpectError([&] { bad_filter.Run(); }, ErrorCode::kInvalidArgument,
              {"fused_conv2d", "[2, 3, 3, 3]", "[1, 4, 5, 5]"});

  OpTester bad_bias("fused_conv2d");
  bad_bias.Input("Input", RandomTensor<float>({1, 3, 5, 5}))
      .Input("Filter", RandomTensor<float>({2, 3, 3, 3}))
      .Input("Bias", RandomTensor<float>({3}))
      .Output("Output");
  ExpectError([&] { bad_bias.Run(); }, ErrorCode::kInvalidArgument,
              {"fused_conv2d", "Bias dims [3]"});

  OpTester bad_residual("fused_conv2d");
  bad_residual.Input("Input", RandomTensor<float>({1, 3, 5, 5}))
      .Input("Filter", RandomTensor<float>({2, 3, 3, 3}))
      .Input("ResidualData", RandomTensor<float>({1, 2, 1, 1}))
      .Output("Output");
  ExpectError([&] { bad_residual.Run(); }, ErrorCode::kInvalidArgument,
              {"fused_conv2d", "ResidualData dims [1, 2, 1, 1]", "[1, 2, 3, 3]",
               "--ir_optim=false"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
