// fuse_upsample_add: a level plus a coarser level upsampled by
// nearest_interp_v2 becomes one fused_upsample_add with the same results,
// taking in the multiply by a per-channel gate that makes the level; sums
// whose upsampling is read elsewhere, products read elsewhere and
// products of two maps keep those ops.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// x [N, 3, 8, 8]; c = pool(x) [N, 3, 4, 4]; g = global average of x
// [N, 3, 1, 1]; u = c upsampled by 2.
ProgramBuilder TopDown(std::string* x, bool align_corners = false) {
  ProgramBuilder b;
  *x = b.AddInput("x", DataType::kFloat32, {-1, 3, 8, 8});
  b.AddVar("c", DataType::kFloat32, {-1, 3, -1, -1});
  b.AddVar("g", DataType::kFloat32, {-1, 3, 1, 1});
  b.AddVar("u", DataType::kFloat32, {-1, 3, -1, -1});
  b.AddVar("out", DataType::kFloat32, {-1, 3, 8, 8});
  b.AddOp("pool2d", {{"X", {*x}}}, {{"Out", {"c"}}},
          {{"pooling_type", std::string("max")},
           {"ksize", std::vector<int>{2, 2}},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("pool2d", {{"X", {*x}}}, {{"Out", {"g"}}},
          {{"pooling_type", std::string("avg")},
           {"global_pooling", true},
           {"ksize", std::vector<int>{1, 1}}});
  b.AddOp("nearest_interp_v2", {{"X", {"c"}}}, {{"Out", {"u"}}},
          {{"scale", std::vector<float>{2.f, 2.f}},
           {"interp_method", std::string("nearest")},
           {"align_corners", align_corners}});
  return b;
}

std::vector<Tensor> UpsampleAddInput() {
  return {RandomTensor<float>({2, 3, 8, 8}, -3, 3)};
}

TEST(FuseUpsampleAddPass, LevelPlusUpsampledLevel) {
  for (bool upsampled_first : {false, true}) {
    SCOPED_TRACE(upsampled_first ? "u + x" : "x + u");
    std::string x;
    ProgramBuilder b = TopDown(&x);
    b.AddOp("elementwise_add",
            {{"X", {upsampled_first ? "u" : x}},
             {"Y", {upsampled_first ? x : "u"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_add"}, UpsampleAddInput());
    ASSERT_EQ(OpTypes(outcome.program), (Types{"feed", "pool2d", "pool2d",
                                               "fused_upsample_add", "fetch"}));
    const OpDesc& fused = OpAt(outcome, 3);
    EXPECT_EQ(fused.Input("X"), Types{x});
    EXPECT_EQ(fused.Input("Y"), Types{"c"});
    EXPECT_TRUE(fused.Input("XScale").empty());
    EXPECT_EQ(AttrCast<float>(fused.attrs.at("scale_h")), 2.f);
  }
}

TEST(FuseUpsampleAddPass, GatedLevelTakesTheMultiplyIn) {
  for (bool gate_first : {false, true}) {
    SCOPED_TRACE(gate_first ? "g * x" : "x * g");
    std::string x;
    ProgramBuilder b = TopDown(&x);
    b.AddVar("m", DataType::kFloat32, {-1, 3, 8, 8});
    b.AddOp("elementwise_mul",
            {{"X", {gate_first ? "g" : x}}, {"Y", {gate_first ? x : "g"}}},
            {{"Out", {"m"}}});
    b.AddOp("elementwise_add", {{"X", {"m"}}, {"Y", {"u"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_add"}, UpsampleAddInput());
    ASSERT_EQ(OpTypes(outcome.program), (Types{"feed", "pool2d", "pool2d",
                                               "fused_upsample_add", "fetch"}));
    const OpDesc& fused = OpAt(outcome, 3);
    EXPECT_EQ(fused.Input("X"), Types{x});
    EXPECT_EQ(fused.Input("XScale"), Types{"g"});
    EXPECT_EQ(fused.Input("Y"), Types{"c"});
  }
}

TEST(FuseUpsampleAddPass, KeepsWhatItCannotReadThrough) {
  auto unchanged = [](const ProgramBuilder& b, const Types& types) {
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_add"}, UpsampleAddInput());
    EXPECT_EQ(OpTypes(outcome.program), types);
    EXPECT_TRUE(outcome.changes.empty());
  };
  {
    SCOPED_TRACE("upsampled map fetched too");
    std::string x;
    ProgramBuilder b = TopDown(&x);
    b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"u"}}}, {{"Out", {"out"}}});
    b.AddOutput("out");
    b.AddOutput("u");
    unchanged(b, {"feed", "pool2d", "pool2d", "nearest_interp_v2",
                  "elementwise_add", "fetch", "fetch"});
  }
  {
    SCOPED_TRACE("product fetched too: the add still reads through");
    std::string x;
    ProgramBuilder b = TopDown(&x);
    b.AddVar("m", DataType::kFloat32, {-1, 3, 8, 8});
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {"g"}}}, {{"Out", {"m"}}});
    b.AddOp("elementwise_add", {{"X", {"m"}}, {"Y", {"u"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    b.AddOutput("m");
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_add"}, UpsampleAddInput());
    EXPECT_EQ(OpTypes(outcome.program),
              (Types{"feed", "pool2d", "pool2d", "elementwise_mul",
                     "fused_upsample_add", "fetch", "fetch"}));
    EXPECT_TRUE(OpAt(outcome, 4).Input("XScale").empty());
  }
  {
    SCOPED_TRACE("a product of two maps");
    std::string x;
    ProgramBuilder b = TopDown(&x);
    b.AddVar("m", DataType::kFloat32, {-1, 3, 8, 8});
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {x}}}, {{"Out", {"m"}}});
    b.AddOp("elementwise_add", {{"X", {"m"}}, {"Y", {"u"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_add"}, UpsampleAddInput());
    EXPECT_EQ(OpTypes(outcome.program),
              (Types{"feed", "pool2d", "pool2d", "elementwise_mul",
                     "fused_upsample_add", "fetch"}));
  }
  {
    SCOPED_TRACE("align_corners");
    std::string x;
    ProgramBuilder b = TopDown(&x, /*align_corners=*/true);
    b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"u"}}}, {{"Out", {"out"}}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "pool2d", "nearest_interp_v2",
                  "elementwise_add", "fetch"});
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
