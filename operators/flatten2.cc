// flatten2: Out = [prod(X.dims[:axis]), prod(X.dims[axis:])] sharing X's
// data (ops.md 8.9).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class Flatten2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "X as a 2-D tensor").ViewOf("X");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<int32_t>("axis", "dims before axis form Out's first dim")
        .SetDefault(1);
  }
};

class Flatten2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x_dims.size());
    const int axis = ctx->Attr<int32_t>("axis");
    PADDLE_ENFORCE(
        axis >= 0 && axis <= rank,
        errors::InvalidArgument("flatten2: axis = ", axis, " must lie in [0, ",
                                rank, "] for X of shape ", x_dims, "."));
    const framework::DDim out = {framework::Product(x_dims, 0, axis),
                                 framework::Product(x_dims, axis, rank)};
    SetReshapeLikeOutput(ctx, x_dims, out);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(flatten2,
                  paddle_lite::operators::Flatten2Op,
                  paddle_lite::operators::Flatten2OpMaker);
