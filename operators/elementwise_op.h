// Definition shared by elementwise_add, _sub, _mul and _div (ops.md 6.1):
// inputs X and Y, output Out = X op Y after broadcasting, attribute axis.
#pragma once

#include "framework/op_registry.h"
#include "operators/elementwise_shape.h"

namespace paddle_lite {
namespace operators {

/// Checks that X and Y share a dtype and broadcast (see
/// BroadcastElementwiseDims); Out gets the broadcast dims and X's LoD.
class ElementwiseOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    const std::string& type = ctx->op().Type();
    const framework::DataType x_type = ctx->GetInputDataType("X");
    const framework::DataType y_type = ctx->GetInputDataType("Y");
    // Paddle 1.x/2.x programs never mix dtypes; there is no promotion.
    PADDLE_ENFORCE_EQ(
        x_type, y_type,
        errors::InvalidArgument(type, ": X is ", x_type, " but Y is ", y_type,
                                "; both must have one dtype."));
    ElementwiseBroadcast shapes =
        BroadcastElementwiseDims(type, ctx->GetInputDim("X"),
                                 ctx->GetInputDim("Y"), ctx->Attr<int>("axis"));
    ctx->SetOutputDim("Out", shapes.out);
    ctx->ShareLoD("X", "Out");
  }
};

class ElementwiseOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() final {
    AddInput("X", "first operand");
    AddInput("Y", "second operand; either operand may have the lower rank");
    AddOutput("Out", "X op Y, broadcast");
    AddAttr<int>("axis",
                 "dim of the higher-rank operand where the lower-rank one "
                 "starts; -1 aligns trailing dims")
        .SetDefault(-1);
  }
};

}  // namespace operators
}  // namespace paddle_lite
