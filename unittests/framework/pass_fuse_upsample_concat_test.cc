// fuse_upsample_concat: a concat along channels of nearest upsamplings
// (scale attribute) and other maps becomes one fused_upsample_concat with
// the same results; upsamplings read elsewhere, sized by OutSize, with
// align_corners or a source rewritten in between, and concats along other
// axes, stay as they are.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// x [N, 3, 8, 8]; a = pool(x) [N, 3, 4, 4]; b = pool(a) [N, 3, 2, 2]:
// levels of a pyramid.
ProgramBuilder Levels(std::string* x) {
  ProgramBuilder b;
  *x = b.AddInput("x", DataType::kFloat32, {-1, 3, 8, 8});
  for (const char* name : {"a", "b"}) {
    b.AddVar(name, DataType::kFloat32, {-1, 3, -1, -1});
  }
  const AttributeMap pool = {{"pooling_type", std::string("avg")},
                             {"ksize", std::vector<int>{2, 2}},
                             {"strides", std::vector<int>{2, 2}}};
  b.AddOp("pool2d", {{"X", {*x}}}, {{"Out", {"a"}}}, pool);
  b.AddOp("pool2d", {{"X", {"a"}}}, {{"Out", {"b"}}}, pool);
  return b;
}

void Upsample(ProgramBuilder* b,
              const std::string& from,
              const std::string& to,
              float scale,
              AttributeMap more = {}) {
  b->AddVar(to, DataType::kFloat32, {-1, 3, -1, -1});
  more["scale"] = std::vector<float>{scale, scale};
  more["interp_method"] = std::string("nearest");
  if (!more.count("align_corners")) more["align_corners"] = false;
  b->AddOp("nearest_interp_v2", {{"X", {from}}}, {{"Out", {to}}}, more);
}

std::vector<Tensor> UpsampleConcatInput() {
  return {RandomTensor<float>({2, 3, 8, 8}, -3, 3)};
}

TEST(FuseUpsampleConcatPass, PyramidHeadBecomesOneOp) {
  std::string x;
  ProgramBuilder b = Levels(&x);
  Upsample(&b, "b", "b4", 4.f);
  Upsample(&b, "a", "a2", 2.f);
  b.AddVar("out", DataType::kFloat32, {-1, 9, 8, 8});
  b.AddOp("concat", {{"X", {"b4", "a2", x}}}, {{"Out", {"out"}}},
          {{"axis", 1}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"fuse_upsample_concat"}, UpsampleConcatInput());
  ASSERT_EQ(
      OpTypes(outcome.program),
      (Types{"feed", "pool2d", "pool2d", "fused_upsample_concat", "fetch"}));
  const OpDesc& fused = OpAt(outcome, 3);
  EXPECT_EQ(fused.Input("X"), (Types{"b", "a", x}));
  EXPECT_EQ(fused.Output("Out"), Types{"out"});
  EXPECT_EQ(AttrCast<std::vector<float>>(fused.attrs.at("scale_h")),
            (std::vector<float>{4.f, 2.f, 1.f}));
  EXPECT_EQ(AttrCast<std::vector<float>>(fused.attrs.at("scale_w")),
            (std::vector<float>{4.f, 2.f, 1.f}));
  ASSERT_EQ(outcome.changes.size(), 1u);
  // The upsampled maps are gone from the program.
  for (const char* gone : {"b4", "a2"}) {
    EXPECT_EQ(outcome.program.FindVarRecursive(0, gone), nullptr) << gone;
  }
}

TEST(FuseUpsampleConcatPass, KeepsWhatItCannotReadThrough) {
  auto unchanged = [](const ProgramBuilder& b, const Types& types) {
    auto outcome =
        ApplyAndCompare(b, {"fuse_upsample_concat"}, UpsampleConcatInput());
    EXPECT_EQ(OpTypes(outcome.program), types);
    EXPECT_TRUE(outcome.changes.empty());
  };
  const Types kept = {"feed",   "pool2d", "pool2d", "nearest_interp_v2",
                      "concat", "fetch"};
  {
    SCOPED_TRACE("upsampled map fetched too");
    std::string x;
    ProgramBuilder b = Levels(&x);
    Upsample(&b, "a", "a2", 2.f);
    b.AddVar("out", DataType::kFloat32, {-1, 6, 8, 8});
    b.AddOp("concat", {{"X", {"a2", x}}}, {{"Out", {"out"}}}, {{"axis", 1}});
    b.AddOutput("out");
    b.AddOutput("a2");
    unchanged(b, {"feed", "pool2d", "pool2d", "nearest_interp_v2", "concat",
                  "fetch", "fetch"});
  }
  {
    SCOPED_TRACE("align_corners");
    std::string x;
    ProgramBuilder b = Levels(&x);
    Upsample(&b, "a", "a2", 2.f, {{"align_corners", true}});
    b.AddVar("out", DataType::kFloat32, {-1, 6, 8, 8});
    b.AddOp("concat", {{"X", {"a2", x}}}, {{"Out", {"out"}}}, {{"axis", 1}});
    b.AddOutput("out");
    unchanged(b, kept);
  }
  {
    SCOPED_TRACE("sized by OutSize");
    std::string x;
    ProgramBuilder b = Levels(&x);
    b.AddParameter("size", paddle_lite::testing::MakeTensor<int32_t>(
                               {2}, std::vector<int32_t>{8, 8}));
    b.AddVar("a2", DataType::kFloat32, {-1, 3, -1, -1});
    b.AddOp(
        "nearest_interp_v2", {{"X", {"a"}}, {"OutSize", {"size"}}},
        {{"Out", {"a2"}}},
        {{"scale", std::vector<float>{2.f, 2.f}}, {"align_corners", false}});
    b.AddVar("out", DataType::kFloat32, {-1, 6, 8, 8});
    b.AddOp("concat", {{"X", {"a2", x}}}, {{"Out", {"out"}}}, {{"axis", 1}});
    b.AddOutput("out");
    unchanged(b, kept);
  }
  {
    SCOPED_TRACE("along another axis");
    std::string x;
    ProgramBuilder b = Levels(&x);
    Upsample(&b, "a", "a2", 2.f);
    b.AddVar("out", DataType::kFloat32, {-1, 3, 16, 8});
    b.AddOp("concat", {{"X", {"a2", x}}}, {{"Out", {"out"}}}, {{"axis", 2}});
    b.AddOutput("out");
    unchanged(b, kept);
  }
  {
    SCOPED_TRACE("source rewritten between the upsampling and the concat");
    std::string x;
    ProgramBuilder b = Levels(&x);
    Upsample(&b, "a", "a2", 2.f);
    b.AddOp("scale", {{"X", {"a"}}}, {{"Out", {"a"}}}, {{"scale", 2.0f}});
    b.AddVar("out", DataType::kFloat32, {-1, 6, 8, 8});
    b.AddOp("concat", {{"X", {"a2", x}}}, {{"Out", {"out"}}}, {{"axis", 1}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "pool2d", "nearest_interp_v2", "scale",
                  "concat", "fetch"});
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
