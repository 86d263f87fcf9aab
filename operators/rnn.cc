// rnn: the cuDNN-style multi-layer (bidirectional) LSTM / GRU / simple RNN
// of Paddle 2.x over a time-major [T, N, I] input (ops.md 15).
#include <string>
#include <vector>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class RnnOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[T, N, I], time-major");
    AddInput("PreState",
             "initial states, each [L*D, N, H]: [h0, c0] for LSTM, [h0] "
             "otherwise")
        .AsDuplicable();
    AddInput("WeightList",
             "all W_ih/W_hh by layer, direction, then all b_ih/b_hh in the "
             "same order")
        .AsDuplicable();
    AddInput("SequenceLength", "int32 [N] valid lengths").AsDispensable();
    AddOutput("Out", "[T, N, D*H]; D*H = [forward, backward] outputs");
    AddOutput("State", "final states, same shapes as PreState").AsDuplicable();
    AddOutput("DropoutState", "training only").AsExtra();
    AddOutput("Reserve", "training only").AsExtra();
    // No default: Paddle requires the mode in every program.
    AddAttr<std::string>("mode", "LSTM, GRU, RNN_RELU or RNN_TANH")
        .InEnum({"LSTM", "GRU", "RNN_RELU", "RNN_TANH"});
    AddAttr<bool>("is_bidirec", "two directions (D = 2)").SetDefault(false);
    AddAttr<int32_t>("num_layers", "stacked layers (L)")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<int32_t>("input_size", "I; the weights' shapes are authoritative")
        .SetDefault(10);
    AddAttr<int32_t>("hidden_size", "H").SetDefault(100).GreaterThan(0);
    AddAttr<float>("dropout_prob", "between layers, training only")
        .SetDefault(0.0f);
    AddAttr<bool>("is_test", "inference: dropout off").SetDefault(false);
    AddAttr<int32_t>("seed", "dropout seed, training only").SetDefault(0);
  }
};

class RnnOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim in = ctx->GetInputDim("Input");
    PADDLE_ENFORCE_EQ(
        in.size(), 3u,
        errors::InvalidArgument(
            "rnn: Input must be 3-D [T, N, I] (time-major), got ", in, "."));
    const std::string mode = ctx->Attr<std::string>("mode");
    const int64_t gates = mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1;
    const int64_t dirs = ctx->Attr<bool>("is_bidirec") ? 2 : 1;
    const int64_t layers = ctx->Attr<int32_t>("num_layers");
    const int64_t hidden = ctx->Attr<int32_t>("hidden_size");
    const int64_t batch = in[1];

    const std::vector<framework::DDim> states = ctx->GetInputsDim("PreState");
    const size_t num_states = mode == "LSTM" ? 2 : 1;
    PADDLE_ENFORCE_EQ(
        states.size(), num_states,
        errors::InvalidArgument("rnn: mode ", mode, " needs ", num_states,
                                " PreState tensors, got ", states.size(), "."));
    const framework::DDim state_dims = {layers * dirs, batch, hidden};
    for (size_t i = 0; i < states.size(); ++i) {
      PADDLE_ENFORCE(states[i] == state_dims,
                     errors::InvalidArgument(
                         "rnn: PreState[", i, "] is ", states[i],
                         ", expected [num_layers * D, N, hidden_size] = ",
                         state_dims, " for Input ", in, ", num_layers ", layers,
                         ", hidden_size ", hidden, "."));
    }

    const std::vector<framework::DDim> weights =
        ctx->GetInputsDim("WeightList");
    const int64_t num_matrices = 2 * layers * dirs;
    PADDLE_ENFORCE_EQ(static_cast<int64_t>(weights.size()), 2 * num_matrices,
                      errors::InvalidArgument(
                          "rnn: WeightList needs 4 * num_layers * D = ",
                          2 * num_matrices, " tensors (num_layers ", layers,
                          ", D ", dirs, "), got ", weights.size(), "."));
    for (int64_t i = 0; i < num_matrices; ++i) {
      const int64_t layer = i / (2 * dirs);
      const bool is_ih = i % 2 == 0;
      const int64_t cols = !is_ih ? hidden : layer == 0 ? in[2] : dirs * hidden;
      const framework::DDim want = {gates * hidden, cols};
      PADDLE_ENFORCE(weights[i] == want,
                     errors::InvalidArgument(
                         "rnn: WeightList[", i, "] (", is_ih ? "W_ih" : "W_hh",
                         " of layer ", layer, ") is ", weights[i],
                         ", expected ", want, " for mode ", mode,
                         ", hidden_size ", hidden, " and Input ", in, "."));
      const framework::DDim& bias = weights[num_matrices + i];
      PADDLE_ENFORCE(framework::Product(bias) == gates * hidden,
                     errors::InvalidArgument(
                         "rnn: WeightList[", num_matrices + i, "] (",
                         is_ih ? "b_ih" : "b_hh", " of layer ", layer, ") is ",
                         bias, ", expected [", gates * hidden, "] for mode ",
                         mode, ", hidden_size ", hidden, "."));
    }

    if (ctx->HasInput("SequenceLength")) {
      const framework::DDim len = ctx->GetInputDim("SequenceLength");
      PADDLE_ENFORCE(len == framework::DDim{batch},
                     errors::InvalidArgument("rnn: SequenceLength must be [N] "
                                             "= [",
                                             batch, "] for Input ", in,
                                             ", got ", len, "."));
      const framework::DataType type = ctx->GetInputDataType("SequenceLength");
      PADDLE_ENFORCE(type == framework::DataType::kInt32 ||
                         type == framework::DataType::kInt64,
                     errors::InvalidArgument(
                         "rnn: SequenceLength must be int32 or int64, got ",
                         framework::DataTypeName(type), "."));
    }

    ctx->SetOutputDim("Out", {in[0], batch, dirs * hidden});
    const size_t num_outputs = ctx->exec_context().OutputSize("State");
    PADDLE_ENFORCE_EQ(
        num_outputs, num_states,
        errors::InvalidArgument("rnn: mode ", mode, " has ", num_states,
                                " State outputs, got ", num_outputs, "."));
    ctx->SetOutputsDim("State",
                       std::vector<framework::DDim>(num_states, state_dims));
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(rnn,
                  paddle_lite::operators::RnnOp,
                  paddle_lite::operators::RnnOpMaker);
