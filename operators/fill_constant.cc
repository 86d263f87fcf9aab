// fill_constant: Out of `shape` and `dtype` filled with one value
// (ops.md 9.1).
#include "operators/fill_constant_value.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class FillConstantOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("ValueTensor", "1-element tensor; the value (first priority)")
        .AsDispensable();
    AddInput("ShapeTensor",
             "1-D int32/int64 tensor; the shape (first "
             "priority)")
        .AsDispensable();
    AddInput("ShapeTensorList", "1-element int32/int64 tensors, one per dim")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "the filled tensor");
    AddAttr<int32_t>("dtype", "element type of Out (VarType.Type number)")
        .SetDefault(static_cast<int32_t>(framework::DataType::kFloat32));
    // INTS in 1.x files, LONGS in 2.x: read as int64 either way.
    AddAttr<std::vector<int64_t>>("shape", "dims of Out").SetDefault({});
    AddAttr<float>("value", "the value when str_value is empty")
        .SetDefault(0.0f);
    AddAttr<std::string>("str_value", "the value as exact text").SetDefault("");
    AddAttr<bool>("force_cpu", "placement hint only").SetDefault(false);
    AddAttr<int32_t>("place_type", "placement hint only").SetDefault(-1);
  }
};

class FillConstantOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    // Bad dtype or str_value fail here, before any kernel runs.
    OutDataType(ctx->op());
    const auto str_value = ctx->Attr<std::string>("str_value");
    if (HasTensorInput(*ctx, "ValueTensor")) {
      const framework::Tensor& value = ctx->GetInputTensor("ValueTensor");
      PADDLE_ENFORCE_EQ(value.numel(), 1,
                        errors::InvalidArgument(
                            "fill_constant: ValueTensor must hold one value, "
                            "got ",
                            framework::TensorSummary(value), "."));
    } else if (!str_value.empty()) {
      ParseFillStrValue(str_value);
    }
    std::vector<int64_t> shape;
    if (HasTensorInput(*ctx, "ShapeTensor")) {
      shape = IntInputValues(*ctx, "ShapeTensor");
    } else if (HasTensorInput(*ctx, "ShapeTensorList")) {
      shape = IntListInputValues(*ctx, "ShapeTensorList");
    } else {
      shape = ctx->Attr<std::vector<int64_t>>("shape");
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      PADDLE_ENFORCE_GE(
          shape[i], 0,
          errors::InvalidArgument(
              "fill_constant: shape ", shape, " has the negative dim ",
              shape[i], " at ", i,
              " (-1 placeholders need ShapeTensor or ShapeTensorList)."));
    }
    ctx->SetOutputDim("Out", shape);
  }

  // Out's type comes from the dtype attribute, not from an input.
  framework::DataType IndicateDataType(
      const framework::KernelTypeContext& ctx) const override {
    return OutDataType(ctx.op());
  }

 private:
  static framework::DataType OutDataType(const framework::OperatorBase& op) {
    const int32_t dtype = op.Attr<int32_t>("dtype");
    PADDLE_ENFORCE(framework::IsValidDataType(dtype),
                   errors::InvalidArgument("fill_constant: dtype ", dtype,
                                           " is not a known data type."));
    return static_cast<framework::DataType>(dtype);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fill_constant,
                  paddle_lite::operators::FillConstantOp,
                  paddle_lite::operators::FillConstantOpMaker);
