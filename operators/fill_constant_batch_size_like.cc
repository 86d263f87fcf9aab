// fill_constant_batch_size_like: Out of `shape` and `dtype` filled with one
// value, one of whose dims is copied from Input's (the batch size; ops.md
// 9.2).
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "operators/fill_constant_value.h"

namespace paddle_lite {
namespace operators {

class FillConstantBatchSizeLikeOpMaker
    : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "only its dims (and LoD) are used");
    AddOutput("Out", "the filled tensor");
    // INTS in every known file; int64 reads LONGS as well.
    AddAttr<std::vector<int64_t>>(
        "shape", "dims of Out; shape[output_dim_idx] is replaced");
    AddAttr<int32_t>("input_dim_idx", "dim of Input giving the batch size")
        .SetDefault(0);
    AddAttr<int32_t>("output_dim_idx", "dim of Out receiving the batch size")
        .SetDefault(0);
    AddAttr<int32_t>("dtype", "element type of Out (VarType.Type number)")
        .SetDefault(static_cast<int32_t>(framework::DataType::kFloat32));
    AddAttr<float>("value", "the value when str_value is empty")
        .SetDefault(0.0f);
    AddAttr<std::string>("str_value", "the value as exact text").SetDefault("");
    AddAttr<bool>("force_cpu", "placement hint only").SetDefault(false);
  }
};

class FillConstantBatchSizeLikeOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    OutDataType(ctx->op());
    const auto str_value = ctx->Attr<std::string>("str_value");
    if (!str_value.empty()) {
      try {
        ParseFillStrValue(str_value);
      } catch (const Exception&) {
        PADDLE_THROW(errors::InvalidArgument(
            "fill_constant_batch_size_like: str_value '", str_value,
            "' is not a number."));
      }
    }
    const framework::DDim in = ctx->GetInputDim("Input");
    auto shape = ctx->Attr<std::vector<int64_t>>("shape");
    const int input_dim_idx = ctx->Attr<int32_t>("input_dim_idx");
    const int output_dim_idx = ctx->Attr<int32_t>("output_dim_idx");
    PADDLE_ENFORCE(
        input_dim_idx >= 0 && input_dim_idx < static_cast<int>(in.size()),
        errors::InvalidArgument("fill_constant_batch_size_like: input_dim_idx ",
                                input_dim_idx, " is not a dim of Input ", in,
                                "."));
    PADDLE_ENFORCE(
        output_dim_idx >= 0 && output_dim_idx < static_cast<int>(shape.size()),
        errors::InvalidArgument(
            "fill_constant_batch_size_like: output_dim_idx ", output_dim_idx,
            " is not a dim of shape ", shape, "."));
    const framework::LoD& lod = ctx->GetInputLoD("Input");
    // A LoD tensor's batch is its number of sequences, not of rows.
    if (!lod.empty() && input_dim_idx == 0) {
      shape[output_dim_idx] = static_cast<int64_t>(lod.back().size()) - 1;
    } else {
      shape[output_dim_idx] = in[input_dim_idx];
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      PADDLE_ENFORCE_GE(
          shape[i], 0,
          errors::InvalidArgument("fill_constant_batch_size_like: shape ",
                                  ctx->Attr<std::vector<int64_t>>("shape"),
                                  " has the negative dim ", shape[i], " at ", i,
                                  " (only output_dim_idx ", output_dim_idx,
                                  " is taken from Input ", in, ")."));
    }
    ctx->SetOutputDim("Out", shape);
    // Paddle sets no LoD on Out; clear what a previous run may have left.
    ctx->SetOutputLoD("Out", {});
  }

  // Out's type comes from the dtype attribute, not from Input.
  framework::DataType IndicateDataType(
      const framework::KernelTypeContext& ctx) const override {
    return OutDataType(ctx.op());
  }

 private:
  static framework::DataType OutDataType(const framework::OperatorBase& op) {
    const int32_t dtype = op.Attr<int32_t>("dtype");
    PADDLE_ENFORCE(
        framework::IsValidDataType(dtype),
        errors::InvalidArgument("fill_constant_batch_size_like: dtype ", dtype,
                                " is not a known data type."));
    return static_cast<framework::DataType>(dtype);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fill_constant_batch_size_like,
                  paddle_lite::operators::FillConstantBatchSizeLikeOp,
                  paddle_lite::operators::FillConstantBatchSizeLikeOpMaker);
