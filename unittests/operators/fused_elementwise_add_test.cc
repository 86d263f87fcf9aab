// fused_elementwise_add and fused_elementwise_mul: the element-wise op
// then the activation, against the two standalone ops, with broadcasting.
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

struct AddActivation {
  std::string type;
  std::vector<std::pair<std::string, Attribute>> op_attrs;
  float fuse_alpha;
  float fuse_beta;
};

struct Operands {
  DDim x;
  DDim y;
  int axis;
};

void CheckAgainstUnfused(const std::string& op) {
  const AddActivation acts[] = {
      {"", {}, 0, 0},
      {"relu", {}, 0, 0},
      {"relu6", {{"threshold", 2.0f}}, 0, 2.0f},
      {"leaky_relu", {{"alpha", 0.3f}}, 0.3f, 0},
      {"hard_swish", {}, 0, 0},
      {"sigmoid", {}, 0, 0},
      {"swish", {{"beta", 2.0f}}, 2.0f, 0},
      {"hard_sigmoid", {{"slope", 0.2f}, {"offset", 0.5f}}, 0.2f, 0.5f},
  };
  const Operands shapes[] = {
      {{13, 127}, {13, 127}, -1}, {{2, 3, 4, 5}, {3}, 1},
      {{2, 3, 4}, {4}, -1},       {{1}, {1}, -1},
      {{0, 3}, {3}, -1},
  };
  for (const Operands& s : shapes) {
    for (const AddActivation& a : acts) {
      SCOPED_TRACE(op + " + '" + a.type + "' on " +
                   ::testing::PrintToString(s.x));
      const auto x = RandomTensor<float>(s.x, -4, 4, 1);
      const auto y = RandomTensor<float>(s.y, -2, 2, 2);
      OpTester plain("elementwise_" + op);
      plain.Input("X", x).Input("Y", y).Output("Out").Attr("axis", s.axis);
      plain.Run();
      framework::Tensor expected = plain.GetOutput("Out");
      if (!a.type.empty()) {
        OpTester act(a.type);
        act.Input("X", expected).Output("Out");
        for (auto& kv : a.op_attrs) act.Attr(kv.first, kv.second);
        act.Run();
        expected = act.GetOutput("Out");
      }
      OpTester fused("fused_elementwise_" + op);
      fused.Input("X", x).Input("Y", y).Output("Out").Attr("axis", s.axis);
      if (!a.type.empty()) {
        fused.Attr("fuse_activation", a.type)
            .Attr("fuse_alpha", a.fuse_alpha)
            .Attr("fuse_beta", a.fuse_beta);
      }
      fused.Run();
      ExpectTensorNear(fused.GetOutput("Out"), expected);
    }
  }
}

TEST(FusedElementwiseAddOp, MatchesAddThenActivation) {
  CheckAgainstUnfused("add");
}

TEST(FusedElementwiseMulOp, MatchesMulThenActivation) {
  CheckAgainstUnfused("mul");
}

TEST(FusedElementwiseAddOp, HandComputedDouble) {
  OpTester t("fused_elementwise_add");
  t.Input("X", MakeTensor<double>({2, 2}, {1, -2, 3, -4}))
      .Input("Y", MakeTensor<double>({2}, {1, 1}))
      .Output("Out", DataType::kFloat64)
      .Attr("fuse_activation", std::string("relu"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<double>({2, 2}, {2, 0, 4, 0}));
}

TEST(FusedElementwiseMulOp, AllKernelsAndErrors) {
  for (const char* op : {"fused_elementwise_add", "fused_elementwise_mul"}) {
    OpTester t(op);
    t.Input("X", RandomTensor<float>({2, 3, 5}, -2, 2, 3))
        .Input("Y", RandomTensor<float>({3, 1}, -2, 2, 4))
        .Output("Out")
        .Attr("axis", 1)
        .Attr("fuse_activation", std::string("swish"))
        .Attr("fuse_alpha", 1.0f);
    t.RunAllKernels();

    OpTester bad(op);
    bad.Input("X", RandomTensor<float>({2, 3}))
        .Input("Y", RandomTensor<float>({4}))
        .Output("Out");
    ExpectError([&] { bad.Run(); }, ErrorCode::kInvalidArgument,
                {op, "[2, 3]", "[4]"});
    OpTester bad_act(op);
    bad_act.Input("X", RandomTensor<float>({2, 3}))
        .Input("Y", RandomTensor<float>({3}))
        .Output("Out")
        .Attr("fuse_activation", std::string("gelu"));
    ExpectError([&] { bad_act.Run(); }, ErrorCode::kInvalidArgument,
                {"fuse_activation", "gelu"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
