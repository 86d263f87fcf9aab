// Shared shape rule of element-wise unary ops (activations, scale, ...):
// Out has the dims and LoD of X.
#pragma once

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class UnaryOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }
};

/// Maker base for ops of the form X -> Out plus attributes: derive and add
/// the attributes in MakeAttrs().
class UnaryOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() final {
    AddInput("X", "input tensor");
    AddOutput("Out", "output tensor, same shape as X");
    MakeAttrs();
  }

 protected:
  virtual void MakeAttrs() {}
};

}  // namespace operators
}  // namespace paddle_lite
