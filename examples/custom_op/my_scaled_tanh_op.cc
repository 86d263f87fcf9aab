// my_scaled_tanh: Out = tanh(scale * X), an op the core does not have,
// added by a plugin. The definition is written exactly as an in-tree op
// (operators/<op>.cc): a Maker with the slots and attributes and their
// defaults, an op class that infers the output shape, and the
// registration macro.
#include "framework/op_registry.h"
#include "framework/plugin.h"

namespace custom_op {

namespace fw = paddle_lite::framework;

class MyScaledTanhOpMaker : public fw::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "tanh(scale * X), same shape and LoD as X");
    AddAttr<float>("scale", "factor applied before tanh")
        .SetDefault(1.0f)
        .GreaterThan(0.0f);
  }
};

class MyScaledTanhOp : public fw::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(fw::InferShapeContext* ctx) const override {
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }
};

}  // namespace custom_op

PDLITE_PLUGIN(custom_op);

REGISTER_OPERATOR(my_scaled_tanh,
                  custom_op::MyScaledTanhOp,
                  custom_op::MyScaledTanhOpMaker);
