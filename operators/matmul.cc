// matmul (v1): Out = alpha * op(X) @ op(Y) with transpose_X / transpose_Y
// and batch dims that must match exactly (ops.md section 10.2; the shape
// rules live in matmul_shape.h, shared with the kernels).
#include "framework/op_registry.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace operators {

class MatmulOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    // head_number > 1 appears only in fused multi-head graphs, where it
    // splits the product per head; plain matmul math would be wrong there.
    if (ctx->exec_context().HasAttr("head_number")) {
      const int head_number = ctx->Attr<int>("head_number");
      PADDLE_ENFORCE_EQ(
          head_number, 1,
          errors::Unimplemented("matmul: head_number=", head_number,
                                " (multi-head fused matmul) is not supported; "
                                "only head_number=1 is."));
    }
    const MatmulPlan plan = PlanMatmul(
        ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
        ctx->Attr<bool>("transpose_X"), ctx->Attr<bool>("transpose_Y"));
    ctx->SetOutputDim("Out", plan.out_dims);
    ctx->ShareLoD("X", "Out");
  }
};

class MatmulOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "left operand, rank >= 1");
    AddInput("Y", "right operand, rank >= 1");
    AddOutput("Out", "alpha * op(X) @ op(Y)");
    AddAttr<bool>("transpose_X", "transpose the last two dims of X")
        .SetDefault(false);
    AddAttr<bool>("transpose_Y", "transpose the last two dims of Y")
        .SetDefault(false);
    AddAttr<float>("alpha", "scale of the product").SetDefault(1.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(matmul,
                  paddle_lite::operators::MatmulOp,
                  paddle_lite::operators::MatmulOpMaker);
