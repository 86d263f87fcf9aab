// fuse_conv_upsample_add: after fuse_conv_residual, a 1x1 convolution
// whose residual is a coarser map upsampled by nearest_interp_v2 becomes
// one fused_conv2d_upsample_add reading the coarser map, with the same
// results, its activation kept; convolutions the kernel's own loops do not
// run (3x3, strided, grouped), upsamplings read elsewhere or with
// align_corners, and computed filters keep the ops.
#include <algorithm>

#include "framework/passes/pass_utils.h"
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct Step {
  std::vector<int64_t> filter = {6, 4, 1, 1};
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  int groups = 1;
  bool align_corners = false;
  bool fetch_upsampled = false;
  bool activation = false;
};

// x [N, 4, 8, 8]; c = conv 1x1 of pool(x) to 6 channels [N, 6, 4, 4];
// u = c upsampled by 2; out = conv(x) + u (then relu).
ProgramBuilder TopDown(const Step& s) {
  ProgramBuilder b;
  const std::string x = b.AddInput("x", DataType::kFloat32, {-1, 4, 8, 8});
  b.AddParameter("wc", RandomTensor<float>({6, 4, 1, 1}, -1, 1, 1));
  b.AddParameter("w", RandomTensor<float>(DDim(s.filter), -1, 1, 2));
  b.AddParameter("bias", RandomTensor<float>({6}, -1, 1, 3));
  b.AddVar("p", DataType::kFloat32, {-1, 4, -1, -1});
  b.AddVar("c", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("u", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("f", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("sum", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddOp("pool2d", {{"X", {x}}}, {{"Out", {"p"}}},
          {{"pooling_type", std::string("max")},
           {"ksize", std::vector<int>{2, 2}},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("conv2d", {{"Input", {"p"}}, {"Filter", {"wc"}}},
          {{"Output", {"c"}}});
  b.AddOp("nearest_interp_v2", {{"X", {"c"}}}, {{"Out", {"u"}}},
          {{"scale", std::vector<float>{2.f, 2.f}},
           {"interp_method", std::string("nearest")},
           {"align_corners", s.align_corners}});
  b.AddOp(
      "conv2d", {{"Input", {x}}, {"Filter", {"w"}}, {"Bias", {"bias"}}},
      {{"Output", {"f"}}},
      {{"strides", s.strides}, {"paddings", s.paddings}, {"groups", s.groups}});
  b.AddOp("elementwise_add", {{"X", {"f"}}, {"Y", {"u"}}}, {{"Out", {"sum"}}});
  std::string out = "sum";
  if (s.activation) {
    b.AddVar("out", DataType::kFloat32, {-1, 6, -1, -1});
    b.AddOp("relu", {{"X", {"sum"}}}, {{"Out", {"out"}}});
    out = "out";
  }
  b.AddOutput(out);
  if (s.fetch_upsampled) b.AddOutput("u");
  return b;
}

std::vector<Tensor> TopDownInput() {
  return {RandomTensor<float>({2, 4, 8, 8}, -3, 3)};
}

const Types kPasses = {"fuse_conv_residual", "fuse_conv_activation",
                       "fuse_conv_upsample_add"};

TEST(FuseConvUpsampleAddPass, PointwiseConvPlusUpsampledLevel) {
  for (bool activation : {false, true}) {
    SCOPED_TRACE(activation ? "then relu" : "no activation");
    Step s;
    s.activation = activation;
    auto outcome = ApplyAndCompare(TopDown(s), kPasses, TopDownInput());
    ASSERT_EQ(OpTypes(outcome.program),
              (Types{"feed", "pool2d", "conv2d", "fused_conv2d_upsample_add",
                     "fetch"}));
    const OpDesc& fused = OpAt(outcome, 3);
    EXPECT_EQ(fused.Input("ResidualData"), Types{"c"});
    EXPECT_EQ(fused.Input("Bias"), Types{"bias"});
    EXPECT_EQ(AttrCast<float>(fused.attrs.at("scale_h")), 2.f);
    EXPECT_EQ(AttrCast<float>(fused.attrs.at("scale_w")), 2.f);
    EXPECT_EQ(passes::GetAttr<std::string>(fused, "fuse_activation"),
              activation ? "relu" : "");
  }
}

TEST(FuseConvUpsampleAddPass, KeepsWhatItsKernelDoesNotRun) {
  auto unchanged = [](const Step& s) {
    auto outcome = ApplyAndCompare(TopDown(s), kPasses, TopDownInput());
    const Types types = OpTypes(outcome.program);
    EXPECT_EQ(std::count(types.begin(), types.end(), "nearest_interp_v2"), 1);
    EXPECT_EQ(std::count(types.begin(), types.end(), "fused_conv2d"), 1);
    for (const std::string& line : outcome.changes) {
      EXPECT_EQ(line.find("upsampled"), std::string::npos) << line;
    }
  };
  {
    SCOPED_TRACE("3x3 window");
    Step s;
    s.filter = {6, 4, 3, 3};
    s.paddings = {1, 1};
    unchanged(s);
  }
  {
    SCOPED_TRACE("grouped");
    Step s;
    s.filter = {6, 2, 1, 1};
    s.groups = 2;
    unchanged(s);
  }
  {
    SCOPED_TRACE("upsampled map fetched too");
    Step s;
    s.fetch_upsampled = true;
    unchanged(s);
  }
  {
    SCOPED_TRACE("align_corners");
    Step s;
    s.align_corners = true;
    unchanged(s);
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
