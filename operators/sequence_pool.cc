// sequence_pool: one row per sequence of X's last LoD level, pooled with
// SUM, AVERAGE, SQRT, MAX, LAST or FIRST (ops.md 16.3).
#include "operators/sequence_lod.h"

namespace paddle_lite {
namespace operators {

class SequencePoolOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[T, D...] rows of all sequences, with LoD");
    AddOutput("Out",
              "[number of sequences, D...]; LoD of X without its last level");
    AddOutput("MaxIndex",
              "int32, row of X each MAX result came from (-1 for an empty "
              "sequence)")
        .AsExtra();
    AddAttr<std::string>("pooltype", "how each sequence is reduced")
        .SetDefault("AVERAGE")
        .InEnum({"AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"});
    AddAttr<float>("pad_value", "every element of an empty sequence's row")
        .SetDefault(0.0f);
    AddAttr<bool>("is_test", "MaxIndex is not needed").SetDefault(false);
  }
};

class SequencePoolOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x = ctx->GetInputDim("X");
    const framework::LoD& lod = ctx->GetInputLoD("X");
    CheckSequenceLoD(lod, x, "sequence_pool", "X");
    framework::DDim out = x;
    out[0] = static_cast<int64_t>(lod.back().size()) - 1;
    ctx->SetOutputDim("Out", out);
    ctx->SetOutputLoD("Out", framework::LoD(lod.begin(), lod.end() - 1));
    if (ctx->Attr<std::string>("pooltype") == "MAX") {
      ctx->SetOutputDim("MaxIndex", out);
    }
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(sequence_pool,
                  paddle_lite::operators::SequencePoolOp,
                  paddle_lite::operators::SequencePoolOpMaker);
