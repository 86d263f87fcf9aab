// assign_value: Out of `shape` and `dtype` holding the values stored in the
// op's attributes, row-major (ops.md 9.3).
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "operators/value_list_attr.h"

namespace paddle_lite {
namespace operators {

class AssignValueOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "the values laid out in shape");
    AddAttr<std::vector<int64_t>>("shape", "dims of Out");
    AddAttr<int32_t>("dtype", "element type of Out (VarType.Type number)")
        .SetDefault(static_cast<int32_t>(framework::DataType::kFloat32));
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
    AddAttr<std::vector<framework::Scalar>>(
        "values", "values of any dtype (2.6+; wins when non-empty)")
        .SetDefault({});
  }
};

class AssignValueOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DataType dtype = OutDataType(ctx->op());
    const auto shape = ctx->Attr<std::vector<int64_t>>("shape");
    for (size_t i = 0; i < shape.size(); ++i) {
      PADDLE_ENFORCE_GE(shape[i], 0,
                        errors::InvalidArgument("assign_value: shape ", shape,
                                                " has the negative dim ",
                                                shape[i], " at ", i, "."));
    }
    const int64_t count = framework::Product(shape);
    const ValueListAttr values = ChooseValueList(ctx->op(), dtype);
    PADDLE_ENFORCE_EQ(
        values.size, count,
        errors::InvalidArgument(
            "assign_value: shape ", shape, " needs ", count, " values, but ",
            values.name.empty() ? std::string("no value list") : values.name,
            " holds ", values.size, " (dtype ", dtype, ")."));
    ctx->SetOutputDim("Out", shape);
  }

  // Out's type comes from the dtype attribute: the op has no input.
  framework::DataType IndicateDataType(
      const framework::KernelTypeContext& ctx) const override {
    return OutDataType(ctx.op());
  }

 private:
  static framework::DataType OutDataType(const framework::OperatorBase& op) {
    const int32_t dtype = op.Attr<int32_t>("dtype");
    PADDLE_ENFORCE(framework::IsValidDataType(dtype),
                   errors::InvalidArgument("assign_value: dtype ", dtype,
                                           " is not a known data type."));
    return static_cast<framework::DataType>(dtype);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(assign_value,
                  paddle_lite::operators::AssignValueOp,
                  paddle_lite::operators::AssignValueOpMaker);
