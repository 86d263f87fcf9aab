// feed: binds element `col` of the caller's input list (the `feed`
// variable) to the model input `Out`, sharing data and LoD.
#include "framework/executor.h"
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class FeedOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;
  // A feed's output shape is the input shape the plan is keyed by; a
  // fetch's output is the list itself.
  bool OutputShapesFollowInputShapes() const override { return true; }

  void RunWithoutKernel(const framework::RunEnv& env) const override {
    int col = Attr<int>("col");
    auto* feed_var = env.scope->FindVar(Input("X"));
    PADDLE_ENFORCE(
        feed_var != nullptr && feed_var->IsType<framework::TensorList>(),
        errors::NotFound("feed: the feed list '", Input("X"), "' is missing."));
    const auto& feeds = feed_var->Get<framework::TensorList>();
    const std::string& name = Output("Out");
    PADDLE_ENFORCE(col >= 0 && col < static_cast<int>(feeds.size()) &&
                       feeds[col].IsInitialized(),
                   errors::PreconditionNotMet("Input '", name, "' (col ", col,
                                              ") was not given."));
    const framework::Tensor& given = feeds[col];
    if (const auto* desc = env.program->FindVarRecursive(0, name)) {
      PADDLE_ENFORCE(
          given.dtype() == desc->dtype,
          errors::InvalidArgument(
              "Input '", name, "' was given ", given.dtype(), " data of shape ",
              given.dims(), " but the model declares it ", desc->dtype, "."));
    }
    env.scope->FindVar(name)->GetMutable<framework::Tensor>()->ShareDataWith(
        given);
  }
};

class FeedOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "the feed list");
    AddOutput("Out", "the model input");
    AddAttr<int32_t>("col", "position in the feed list");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(feed,
                  paddle_lite::operators::FeedOp,
                  paddle_lite::operators::FeedOpMaker);
