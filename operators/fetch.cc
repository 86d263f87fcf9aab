// fetch: stores `X` at position `col` of the output list (the `fetch`
// variable). Host tensors are shared; device tensors are copied to the CPU.
#include "framework/executor.h"
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class FetchOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;
  // A feed's output shape is the input shape the plan is keyed by; a
  // fetch's output is the list itself.
  bool OutputShapesFollowInputShapes() const override { return true; }

  void RunWithoutKernel(const framework::RunEnv& env) const override {
    int col = Attr<int>("col");
    PADDLE_ENFORCE_GE(
        col, 0, errors::InvalidArgument("fetch: col is negative (", col, ")."));
    auto* src = env.scope->FindVar(Input("X"));
    PADDLE_ENFORCE(src != nullptr && src->IsType<framework::Tensor>() &&
                       src->Get<framework::Tensor>().IsInitialized(),
                   errors::NotFound("fetch: output '", Input("X"),
                                    "' was never computed."));
    auto* list =
        env.scope->FindVar(Output("Out"))->GetMutable<framework::TensorList>();
    if (static_cast<int>(list->size()) <= col) list->resize(col + 1);
    const auto& t = src->Get<framework::Tensor>();
    if (t.place().is_host()) {
      (*list)[col] = t;
    } else {
      framework::TensorCopy(t, platform::CPUPlace{}, &(*list)[col]);
    }
  }
};

class FetchOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "the tensor to return");
    AddOutput("Out", "the fetch list");
    AddAttr<int32_t>("col", "position in the fetch list");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fetch,
                  paddle_lite::operators::FetchOp,
                  paddle_lite::operators::FetchOpMaker);
