// rnn on CPU: per layer and direction, one GEMM projects the inputs of all
// time steps at once; then each step adds the hidden projection (a small
// GEMM) and applies the cell (ops.md 15).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/gemm.h"

namespace paddle_lite {
namespace kernels {
namespace {

enum class RnnMode { kLstm, kGru, kRnnTanh, kRnnRelu };

RnnMode ParseRnnMode(const std::string& mode) {
  if (mode == "LSTM") return RnnMode::kLstm;
  if (mode == "GRU") return RnnMode::kGru;
  if (mode == "RNN_TANH") return RnnMode::kRnnTanh;
  // The op's enum check leaves RNN_RELU as the only other value.
  return RnnMode::kRnnRelu;
}

int64_t GateCount(RnnMode mode) {
  switch (mode) {
    case RnnMode::kLstm:
      return 4;
    case RnnMode::kGru:
      return 3;
    default:
      return 1;
  }
}

template <typename T>
T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Valid length of every sample; T for all when SequenceLength is absent.
std::vector<int64_t> SequenceLengths(const framework::ExecutionContext& ctx,
                                     int64_t steps,
                                     int64_t batch) {
  const auto* len = ctx.Input<framework::Tensor>("SequenceLength");
  if (len == nullptr) return std::vector<int64_t>(batch, steps);
  std::vector<int64_t> lengths(batch);
  for (int64_t n = 0; n < batch; ++n) {
    lengths[n] = len->dtype() == framework::DataType::kInt64
                     ? len->data<int64_t>()[n]
                     : len->data<int32_t>()[n];
    PADDLE_ENFORCE(lengths[n] >= 0 && lengths[n] <= steps,
                   errors::InvalidArgument(
                       "rnn: SequenceLength[", n, "] = ", lengths[n],
                       " is outside [0, T] = [0, ", steps, "] for Input ",
                       ctx.Input<framework::Tensor>("Input")->dims(), "."));
  }
  return lengths;
}

}  // namespace

template <typename T>
class RnnKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto pre_states = ctx.MultiInput<framework::Tensor>("PreState");
    const auto weights = ctx.MultiInput<framework::Tensor>("WeightList");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const RnnMode mode = ParseRnnMode(ctx.Attr<std::string>("mode"));
    const int64_t dirs = ctx.Attr<bool>("is_bidirec") ? 2 : 1;
    const int64_t layers = ctx.Attr<int>("num_layers");
    const int64_t hidden = ctx.Attr<int>("hidden_size");
    const int64_t gates = GateCount(mode);
    const int64_t steps = input->dims()[0];
    const int64_t batch = input->dims()[1];
    const int64_t width = gates * hidden;
    const std::vector<int64_t> lengths = SequenceLengths(ctx, steps, batch);

    // Running states, [L*D, N, H] each, copied so that State may alias
    // PreState.
    framework::Tensor h;
    framework::Tensor c;
    framework::TensorCopy(*pre_states[0], ctx.GetPlace(), &h);
    if (mode == RnnMode::kLstm) {
      framework::TensorCopy(*pre_states[1], ctx.GetPlace(), &c);
    }

    // State = the running states at the end (copied: they may alias).
    auto write_states = [&] {
      auto state_outs = ctx.MultiOutput<framework::Tensor>("State");
      const framework::Tensor* finals[2] = {&h, &c};
      for (size_t i = 0; i < state_outs.size(); ++i) {
        if (state_outs[i] == nullptr) continue;
        T* dst = state_outs[i]->mutable_data<T>(ctx.GetPlace());
        const T* src = finals[i]->data<T>();
        std::copy(src, src + finals[i]->numel(), dst);
      }
    };
    if (batch == 0) {
      // No sample: every output is empty, but the steps below would still
      // run layers x dirs x T times (a hostile T of 2^40).
      out->mutable_data<T>(ctx.GetPlace());
      write_states();
      return;
    }

    std::vector<T> x_proj(steps * batch * width);
    std::vector<T> h_proj(batch * width);
    // Layer outputs alternate between two buffers; the last layer writes
    // Out.
    framework::Tensor buffers[2];
    const framework::Tensor* layer_in = input;
    for (int64_t l = 0; l < layers; ++l) {
      framework::Tensor* layer_out = out;
      if (l + 1 < layers) {
        layer_out = &buffers[l % 2];
        layer_out->Resize({steps, batch, dirs * hidden});
      }
      T* out_data = layer_out->mutable_data<T>(ctx.GetPlace());
      const int64_t in_width = layer_in->dims()[2];
      for (int64_t d = 0; d < dirs; ++d) {
        const int64_t k = l * dirs + d;
        const framework::Tensor& w_ih = *weights[2 * k];
        const framework::Tensor& w_hh = *weights[2 * k + 1];
        const T* b_ih = weights[2 * layers * dirs + 2 * k]->data<T>();
        const T* b_hh = weights[2 * layers * dirs + 2 * k + 1]->data<T>();
        // GRU's candidate multiplies the biased hidden projection by r, so
        // its hidden bias stays out of the input projection.
        const int64_t folded = mode == RnnMode::kGru ? 2 * hidden : width;

        GemmShape in_shape;
        in_shape.m = steps * batch;
        in_shape.n = width;
        in_shape.k = in_width;
        in_shape.trans_b = true;
        BatchedGemm<T>(dev, in_shape, T(1), *layer_in, {0}, w_ih, {0},
                       x_proj.data());
        dev.ParallelFor(steps * batch, width, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            T* row = x_proj.data() + r * width;
            for (int64_t j = 0; j < width; ++j) row[j] += b_ih[j];
            for (int64_t j = 0; j < folded; ++j) row[j] += b_hh[j];
          }
        });

        GemmShape step_shape;
        step_shape.m = batch;
        step_shape.n = width;
        step_shape.k = hidden;
        step_shape.trans_b = true;
        T* h_data = h.data<T>() + k * batch * hidden;
        T* c_data =
            mode == RnnMode::kLstm ? c.data<T>() + k * batch * hidden : nullptr;
        for (int64_t s = 0; s < steps; ++s) {
          // The backward direction walks time in reverse and writes its
          // outputs at their original positions.
          const int64_t t = d == 0 ? s : steps - 1 - s;
          BatchedGemm<T>(dev, step_shape, T(1), h, {k * batch * hidden}, w_hh,
                         {0}, h_proj.data());
          dev.ParallelFor(batch, 20.0 * width, [&](int64_t begin, int64_t end) {
            for (int64_t n = begin; n < end; ++n) {
              T* o = out_data + (t * batch + n) * dirs * hidden + d * hidden;
              // Past a sample's length: zero output, state carried.
              // In reverse, the first valid step is then len - 1,
              // starting from the initial state.
              if (t >= lengths[n]) {
                std::fill(o, o + hidden, T(0));
                continue;
              }
              Cell(mode, hidden, b_hh, x_proj.data() + (t * batch + n) * width,
                   h_proj.data() + n * width, h_data + n * hidden,
                   c_data ? c_data + n * hidden : nullptr, o);
            }
          });
        }
      }
      layer_in = layer_out;
    }
    write_states();
  }

 private:
  // One step of one sample. gx: input projection with biases (except GRU's
  // candidate hidden bias), gh: W_hh h without bias; updates h (and c) in
  // place and writes h to o. Gate blocks of H: LSTM i, f, g, o; GRU r, z, c.
  static void Cell(RnnMode mode,
                   int64_t hidden,
                   const T* b_hh,
                   const T* gx,
                   const T* gh,
                   T* h,
                   T* c,
                   T* o) {
    switch (mode) {
      case RnnMode::kLstm:
        for (int64_t j = 0; j < hidden; ++j) {
          const T i_gate = Sigmoid(gx[j] + gh[j]);
          const T f_gate = Sigmoid(gx[hidden + j] + gh[hidden + j]);
          const T g_gate = std::tanh(gx[2 * hidden + j] + gh[2 * hidden + j]);
          const T o_gate = Sigmoid(gx[3 * hidden + j] + gh[3 * hidden + j]);
          c[j] = f_gate * c[j] + i_gate * g_gate;
          h[j] = o_gate * std::tanh(c[j]);
          o[j] = h[j];
        }
        break;
      case RnnMode::kGru:
        for (int64_t j = 0; j < hidden; ++j) {
          const T r_gate = Sigmoid(gx[j] + gh[j]);
          const T z_gate = Sigmoid(gx[hidden + j] + gh[hidden + j]);
          const T cand =
              std::tanh(gx[2 * hidden + j] +
                        r_gate * (gh[2 * hidden + j] + b_hh[2 * hidden + j]));
          h[j] = z_gate * h[j] + (T(1) - z_gate) * cand;
          o[j] = h[j];
        }
        break;
      case RnnMode::kRnnTanh:
        for (int64_t j = 0; j < hidden; ++j) {
          h[j] = std::tanh(gx[j] + gh[j]);
          o[j] = h[j];
        }
        break;
      case RnnMode::kRnnRelu:
        for (int64_t j = 0; j < hidden; ++j) {
          const T v = gx[j] + gh[j];
          h[j] = v > T(0) ? v : T(0);
          o[j] = h[j];
        }
        break;
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(rnn,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::RnnKernel<float>,
                   paddle_lite::kernels::RnnKernel<double>);
