// fc: Out = act(flatten(Input, in_num_col_dims) @ W + Bias), Paddle's fully
// connected op, which the fuse_fc pass makes from mul / matmul /
// matmul_v2 + elementwise_add (+ relu). Input is viewed as the matrix
// [prod(dims[:in_num_col_dims]), prod(dims[in_num_col_dims:])]; Out has
// dims Input.dims[:in_num_col_dims] + [N] and Input's LoD.
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class FcOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim in_dims = ctx->GetInputDim("Input");
    const framework::DDim w_dims = ctx->GetInputDim("W");
    const int in_num_col_dims = ctx->Attr<int>("in_num_col_dims");
    const int rank = static_cast<int>(in_dims.size());
    PADDLE_ENFORCE_EQ(
        w_dims.size(), 2u,
        errors::InvalidArgument("fc: W must be 2-D [K, N], got ", w_dims, "."));
    PADDLE_ENFORCE(
        in_num_col_dims >= 1 && in_num_col_dims < rank,
        errors::InvalidArgument("fc: in_num_col_dims must be in [1, ", rank,
                                ") for Input ", in_dims, ", got ",
                                in_num_col_dims, "."));
    const int64_t width = framework::Product(in_dims, in_num_col_dims, rank);
    PADDLE_ENFORCE_EQ(width, w_dims[0],
                      errors::InvalidArgument(
                          "fc: Input ", in_dims,
                          " flattened at in_num_col_dims=", in_num_col_dims,
                          " has width ", width, ", but W ", w_dims,
                          " has height ", w_dims[0], "; they must match."));
    if (ctx->HasInput("Bias")) {
      const framework::DDim bias = ctx->GetInputDim("Bias");
      const bool ok =
          (bias.size() == 1 && bias[0] == w_dims[1]) ||
          (bias.size() == 2 && bias[0] == 1 && bias[1] == w_dims[1]);
      PADDLE_ENFORCE(ok,
                     errors::InvalidArgument("fc: Bias dims ", bias,
                                             " must be [N] or [1, N] "
                                             "with N = ",
                                             w_dims[1], " (W ", w_dims, ")."));
    }
    PADDLE_ENFORCE(!ctx->Attr<bool>("padding_weights"),
                   errors::Unimplemented(
                       "fc: padding_weights (a padded W layout of Paddle's "
                       "fc fusion for some CPUs) is not supported."));
    framework::DDim out(in_dims.begin(), in_dims.begin() + in_num_col_dims);
    out.push_back(w_dims[1]);
    ctx->SetOutputDim("Out", out);
    ctx->ShareLoD("Input", "Out");
  }
};

class FcOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "activations, flattened to 2-D at in_num_col_dims");
    AddInput("W", "weights [K, N]");
    AddInput("Bias", "bias [N] or [1, N], added to every row").AsDispensable();
    AddOutput("Out", "Input.dims[:in_num_col_dims] + [N]");
    AddAttr<int32_t>("in_num_col_dims",
                     "leading dims of Input that form the rows of its matrix")
        .SetDefault(1);
    AddAttr<std::string>("activation_type",
                         "'' (none) or 'relu', applied after the bias")
        .SetDefault("")
        .InEnum({"", "relu"});
    AddAttr<bool>("padding_weights", "W is padded (unsupported)")
        .SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fc,
                  paddle_lite::operators::FcOp,
                  paddle_lite::operators::FcOpMaker);
