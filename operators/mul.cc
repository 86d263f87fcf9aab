// mul: Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), the
// matrix product of fc layers (ops.md section 10.1).
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class MulOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const framework::DDim y_dims = ctx->GetInputDim("Y");
    const int x_num_col_dims = ctx->Attr<int>("x_num_col_dims");
    const int y_num_col_dims = ctx->Attr<int>("y_num_col_dims");
    const int x_rank = static_cast<int>(x_dims.size());
    const int y_rank = static_cast<int>(y_dims.size());
    // Both halves of each flattening must be non-empty.
    PADDLE_ENFORCE(x_num_col_dims >= 1 && x_num_col_dims < x_rank,
                   errors::InvalidArgument(
                       "mul: x_num_col_dims must be in [1, ", x_rank,
                       ") for X ", x_dims, ", got ", x_num_col_dims, "."));
    PADDLE_ENFORCE(y_num_col_dims >= 1 && y_num_col_dims < y_rank,
                   errors::InvalidArgument(
                       "mul: y_num_col_dims must be in [1, ", y_rank,
                       ") for Y ", y_dims, ", got ", y_num_col_dims, "."));
    const int64_t x_width = framework::Product(x_dims, x_num_col_dims, x_rank);
    const int64_t y_height = framework::Product(y_dims, 0, y_num_col_dims);
    PADDLE_ENFORCE_EQ(
        x_width, y_height,
        errors::InvalidArgument(
            "mul: X ", x_dims, " flattened at x_num_col_dims=", x_num_col_dims,
            " has width ", x_width, ", but Y ", y_dims,
            " flattened at y_num_col_dims=", y_num_col_dims, " has height ",
            y_height, "; they must match."));
    framework::DDim out_dims(x_dims.begin(), x_dims.begin() + x_num_col_dims);
    out_dims.insert(out_dims.end(), y_dims.begin() + y_num_col_dims,
                    y_dims.end());
    ctx->SetOutputDim("Out", out_dims);
    ctx->ShareLoD("X", "Out");
  }
};

class MulOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "left operand, flattened to 2-D at x_num_col_dims");
    AddInput("Y", "right operand, flattened to 2-D at y_num_col_dims");
    AddOutput("Out", "X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:]");
    AddAttr<int32_t>("x_num_col_dims",
                     "leading dims of X that form the rows of its matrix")
        .SetDefault(1);
    AddAttr<int32_t>("y_num_col_dims",
                     "leading dims of Y that form the rows of its matrix")
        .SetDefault(1);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(mul,
                  paddle_lite::operators::MulOp,
                  paddle_lite::operators::MulOpMaker);
