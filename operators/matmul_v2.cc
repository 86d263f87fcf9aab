// matmul_v2: NumPy matmul with trans_x / trans_y and broadcast batch dims
// (ops.md section 10.3; the shape rules live in matmul_shape.h, shared with
// the kernels).
#include "framework/op_registry.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace operators {

class MatmulV2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const MatmulPlan plan =
        PlanMatmulV2(ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
                     ctx->Attr<bool>("trans_x"), ctx->Attr<bool>("trans_y"));
    ctx->SetOutputDim("Out", plan.out_dims);
    ctx->ShareLoD("X", "Out");
  }
};

class MatmulV2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "left operand, rank >= 1");
    AddInput("Y", "right operand, rank >= 1");
    AddOutput("Out", "op(X) @ op(Y), batch dims broadcast");
    AddAttr<bool>("trans_x", "transpose the last two dims of X (not 1-D)")
        .SetDefault(false);
    AddAttr<bool>("trans_y", "transpose the last two dims of Y (not 1-D)")
        .SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(matmul_v2,
                  paddle_lite::operators::MatmulV2Op,
                  paddle_lite::operators::MatmulV2OpMaker);
