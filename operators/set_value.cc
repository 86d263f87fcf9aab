// set_value: Out = Input with a strided region overwritten by a value
// broadcast to it, usually in place (Out is Input's variable; ops.md 9.4).
#include <string>
#include <vector>

#include "operators/set_value_region.h"
#include "operators/value_inputs_context.h"
#include "operators/value_list_attr.h"

namespace paddle_lite {
namespace operators {

class SetValueOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "the tensor written");
    AddInput("ValueTensor",
             "the value (wins over the value attributes); Input's type")
        .AsDispensable();
    AddInput("StartsTensorList", "1-element int tensors overriding starts")
        .AsDispensable()
        .AsDuplicable();
    AddInput("EndsTensorList", "1-element int tensors overriding ends")
        .AsDispensable()
        .AsDuplicable();
    AddInput("StepsTensorList", "1-element int tensors overriding steps")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "Input with the region written; often Input itself");
    AddAttr<std::vector<int64_t>>("axes", "the sliced axes of Input");
    AddAttr<std::vector<int64_t>>("starts", "first index per axis")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("ends", "end index (exclusive) per axis")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("steps", "step per axis (may be negative)")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("decrease_axes",
                                  "size-1 axes the value does not have")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("none_axes",
                                  "where the value has an extra size-1 dim")
        .SetDefault({});
    AddAttr<int32_t>("dtype", "type of the attribute values")
        .SetDefault(static_cast<int32_t>(framework::DataType::kFloat32));
    AddAttr<std::vector<int64_t>>("shape", "dims of the attribute values")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>("bool_values", "values for dtype bool")
        .SetDefault({});
    AddAttr<std::vector<float>>("fp32_values", "values for dtype float32")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>("int32_values", "values for dtype int32")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("int64_values", "values for dtype int64")
        .SetDefault({});
    AddAttr<std::vector<double>>("fp64_values", "values for dtype float64")
        .SetDefault({});
    AddAttr<std::vector<float>>("fp16_values", "values for dtype float16")
        .SetDefault({});
    AddAttr<std::vector<framework::Scalar>>(
        "values", "values of any dtype (2.5+; wins when non-empty)")
        .SetDefault({});
  }
};

class SetValueOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::Tensor& input = ctx->GetInputTensor("Input");
    const ValueInputsContext values(
        *ctx, {"StartsTensorList", "EndsTensorList", "StepsTensorList"});
    const SetValueRegion region = ComputeSetValueRegion(values.context());
    framework::DDim value_dims;
    if (ctx->HasInput("ValueTensor")) {
      const framework::Tensor& value = ctx->GetInputTensor("ValueTensor");
      PADDLE_ENFORCE_EQ(value.dtype(), input.dtype(),
                        errors::InvalidArgument("set_value: ValueTensor ",
                                                framework::TensorSummary(value),
                                                " must have the type of Input ",
                                                framework::TensorSummary(input),
                                                "; cast it first."));
      value_dims = value.dims();
    } else {
      value_dims = ctx->Attr<std::vector<int64_t>>("shape");
      for (int64_t d : value_dims) {
        PADDLE_ENFORCE_GE(
            d, 0,
            errors::InvalidArgument("set_value: shape ", value_dims,
                                    " has a negative dim."));
      }
      const auto dtype = ctx->Attr<int32_t>("dtype");
      PADDLE_ENFORCE(framework::IsValidDataType(dtype),
                     errors::InvalidArgument("set_value: dtype ", dtype,
                                             " is not a known data type."));
      const ValueListAttr values =
          ChooseValueList(ctx->op(), static_cast<framework::DataType>(dtype));
      const int64_t count = framework::Product(value_dims);
      PADDLE_ENFORCE_EQ(
          values.size, count,
          errors::InvalidArgument(
              "set_value: shape ", value_dims, " needs ", count,
              " values, but ",
              values.name.empty() ? std::string("no value list") : values.name,
              " holds ", values.size, "."));
    }
    // An empty region is left alone whatever the value's shape.
    PADDLE_ENFORCE(
        framework::Product(region.dims) == 0 ||
            SetValueBroadcastable(value_dims, region.value_dims),
        errors::InvalidArgument("set_value: a value of shape ", value_dims,
                                " cannot be broadcast to the region's shape ",
                                region.value_dims, " (region ", region.dims,
                                " of Input ", input.dims(),
                                " after decrease_axes and none_axes)."));
    ctx->SetOutputDim("Out", input.dims());
    ctx->ShareLoD("Input", "Out");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(set_value,
                  paddle_lite::operators::SetValueOp,
                  paddle_lite::operators::SetValueOpMaker);
