#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// One configuration of the op: sizes, attributes and optional lengths.
struct RnnConfig {
  std::string mode = "LSTM";
  int layers = 1;
  bool bidirec = false;
  int64_t steps = 5;             // T
  int64_t batch = 3;             // N
  int64_t input = 4;             // I
  int64_t hidden = 6;            // H
  std::vector<int32_t> lengths;  // empty: no SequenceLength input
  uint32_t seed = 1;

  int64_t Dirs() const { return bidirec ? 2 : 1; }
  int64_t Gates() const { return mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1; }
  int64_t NumStates() const { return mode == "LSTM" ? 2 : 1; }
};

struct RnnInputs {
  Tensor input;
  std::vector<Tensor> pre_states;
  std::vector<Tensor> weights;
};

template <typename T>
RnnInputs MakeInputs(const RnnConfig& cfg) {
  RnnInputs in;
  uint32_t seed = cfg.seed * 1000;
  in.input = RandomTensor<T>({cfg.steps, cfg.batch, cfg.input}, -1, 1, seed++);
  for (int64_t s = 0; s < cfg.NumStates(); ++s) {
    in.pre_states.push_back(RandomTensor<T>(
        {cfg.layers * cfg.Dirs(), cfg.batch, cfg.hidden}, -1, 1, seed++));
  }
  const int64_t rows = cfg.Gates() * cfg.hidden;
  for (int l = 0; l < cfg.layers; ++l) {
    for (int64_t d = 0; d < cfg.Dirs(); ++d) {
      const int64_t cols = l == 0 ? cfg.input : cfg.Dirs() * cfg.hidden;
      in.weights.push_back(RandomTensor<T>({rows, cols}, -0.6, 0.6, seed++));
      in.weights.push_back(
          RandomTensor<T>({rows, cfg.hidden}, -0.6, 0.6, seed++));
    }
  }
  for (int64_t i = 0; i < 2 * cfg.layers * cfg.Dirs(); ++i) {
    in.weights.push_back(RandomTensor<T>({rows}, -0.5, 0.5, seed++));
  }
  return in;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Naive reference of ops.md 15, written from the formulas with per-step,
// per-sample loops: the cell computes both projections with their biases
// (W_ih x + b_ih and W_hh h + b_hh) for every gate.
template <typename T>
std::vector<Tensor> ReferenceRnn(const RnnConfig& cfg, const RnnInputs& in) {
  const int64_t steps = cfg.steps, batch = cfg.batch, hid = cfg.hidden;
  const int64_t dirs = cfg.Dirs(), gates = cfg.Gates();
  std::vector<std::vector<double>> states;
  for (auto& s : in.pre_states) {
    std::vector<T> v = ToVector<T>(s);
    states.emplace_back(v.begin(), v.end());
  }
  std::vector<T> x0 = ToVector<T>(in.input);
  std::vector<double> layer_in(x0.begin(), x0.end());
  int64_t in_width = cfg.input;
  std::vector<double> layer_out;
  const int64_t num_matrices = 2 * cfg.layers * dirs;
  for (int l = 0; l < cfg.layers; ++l) {
    layer_out.assign(steps * batch * dirs * hid, 0.0);
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t k = l * dirs + d;
      std::vector<T> w_ih = ToVector<T>(in.weights[2 * k]);
      std::vector<T> w_hh = ToVector<T>(in.weights[2 * k + 1]);
      std::vector<T> b_ih = ToVector<T>(in.weights[num_matrices + 2 * k]);
      std::vector<T> b_hh = ToVector<T>(in.weights[num_matrices + 2 * k + 1]);
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t len = cfg.lengths.empty() ? steps : cfg.lengths[n];
        double* h = &states[0][(k * batch + n) * hid];
        double* c =
            cfg.mode == "LSTM" ? &states[1][(k * batch + n) * hid] : nullptr;
        // Forward walks 0..len-1, backward len-1..0; steps >= len stay 0.
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = d == 0 ? s : len - 1 - s;
          const double* x = &layer_in[(t * batch + n) * in_width];
          std::vector<double> ih(gates * hid), hh(gates * hid);
          for (int64_t r = 0; r < gates * hid; ++r) {
            ih[r] = b_ih[r];
            for (int64_t i = 0; i < in_width; ++i) {
              ih[r] += w_ih[r * in_width + i] * x[i];
            }
            hh[r] = b_hh[r];
            for (int64_t i = 0; i < hid; ++i) hh[r] += w_hh[r * hid + i] * h[i];
          }
          for (int64_t j = 0; j < hid; ++j) {
            if (cfg.mode == "LSTM") {
              const double ig = Sigmoid(ih[j] + hh[j]);
              const double fg = Sigmoid(ih[hid + j] + hh[hid + j]);
              const double gg = std::tanh(ih[2 * hid + j] + hh[2 * hid + j]);
              const double og = Sigmoid(ih[3 * hid + j] + hh[3 * hid + j]);
              c[j] = fg * c[j] + ig * gg;
              h[j] = og * std::tanh(c[j]);
            } else if (cfg.mode == "GRU") {
              const double rg = Sigmoid(ih[j] + hh[j]);
              const double zg = Sigmoid(ih[hid + j] + hh[hid + j]);
              const double cg =
                  std::tanh(ih[2 * hid + j] + rg * hh[2 * hid + j]);
              h[j] = zg * h[j] + (1 - zg) * cg;
            } else if (cfg.mode == "RNN_TANH") {
              h[j] = std::tanh(ih[j] + hh[j]);
            } else {
              h[j] = std::max(0.0, ih[j] + hh[j]);
            }
          }
          for (int64_t j = 0; j < hid; ++j) {
            layer_out[(t * batch + n) * dirs * hid + d * hid + j] = h[j];
          }
        }
      }
    }
    layer_in = layer_out;
    in_width = dirs * hid;
  }
  std::vector<Tensor> result;
  result.push_back(
      MakeTensor<T>({steps, batch, dirs * hid},
                    std::vector<T>(layer_out.begin(), layer_out.end())));
  for (auto& s : states) {
    result.push_back(MakeTensor<T>({cfg.layers * dirs, batch, hid},
                                   std::vector<T>(s.begin(), s.end())));
  }
  return result;
}

template <typename T>
OpTester MakeTester(const RnnConfig& cfg, const RnnInputs& in) {
  OpTester t("rnn");
  t.Input("Input", in.input)
      .Inputs("PreState", in.pre_states)
      .Inputs("WeightList", in.weights)
      .Output("Out", framework::ToDataType<T>())
      .Output("State", framework::ToDataType<T>(), cfg.NumStates())
      .Attr("mode", cfg.mode)
      .Attr("num_layers", cfg.layers)
      .Attr("is_bidirec", cfg.bidirec)
      .Attr("input_size", static_cast<int>(cfg.input))
      .Attr("hidden_size", static_cast<int>(cfg.hidden));
  if (!cfg.lengths.empty()) {
    t.Input("SequenceLength", MakeTensor<int32_t>({cfg.batch}, cfg.lengths));
  }
  return t;
}

// Runs the op and compares Out and every State with the reference.
template <typename T>
void CheckAgainstReference(const RnnConfig& cfg,
                           double tol = sizeof(T) == 4 ? 2e-5 : 1e-12,
                           int threads = 1) {
  SCOPED_TRACE(::testing::Message()
               << cfg.mode << " layers=" << cfg.layers
               << " bidirec=" << cfg.bidirec << " T=" << cfg.steps
               << " N=" << cfg.batch << " I=" << cfg.input
               << " H=" << cfg.hidden << " threads=" << threads);
  RnnInputs in = MakeInputs<T>(cfg);
  OpTester t = MakeTester<T>(cfg, in);
  t.Run(framework::LibraryType::Plain(), threads);
  std::vector<Tensor> expected = ReferenceRnn<T>(cfg, in);
  ExpectTensorNear(t.GetOutput("Out"), expected[0], tol, tol);
  for (int64_t s = 0; s < cfg.NumStates(); ++s) {
    ExpectTensorNear(t.GetOutput("State", s), expected[1 + s], tol, tol);
  }
}

TEST(RnnOp, LstmByHand) {
  // H = I = 1, zero weights: the biases alone pick each gate, so a wrong
  // gate order changes the result. i = 0.5, f = σ(-100) ≈ 0,
  // g = tanh(100) = 1, o = σ(100) = 1: c' = 0.5, h' = tanh(0.5).
  OpTester t("rnn");
  t.Input("Input", MakeTensor<float>({1, 1, 1}, {3}))
      .Inputs("PreState", {MakeTensor<float>({1, 1, 1}, {0.7f}),
                           MakeTensor<float>({1, 1, 1}, {2})})
      .Inputs("WeightList", {MakeTensor<float>({4, 1}, {0, 0, 0, 0}),
                             MakeTensor<float>({4, 1}, {0, 0, 0, 0}),
                             MakeTensor<float>({4}, {0, -60, 60, 60}),
                             MakeTensor<float>({4}, {0, -40, 40, 40})})
      .Output("Out")
      .Output("State", DataType::kFloat32, 2)
      .Attr("mode", std::string("LSTM"))
      .Attr("hidden_size", 1);
  t.Run();
  const float h = std::tanh(0.5f);
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 1, 1}, {h}));
  ExpectTensorNear(t.GetOutput("State", 0), MakeTensor<float>({1, 1, 1}, {h}));
  ExpectTensorNear(t.GetOutput("State", 1),
                   MakeTensor<float>({1, 1, 1}, {0.5f}));

  // All gates at 0.5 (zero weights and biases): c' = 0.5 * c0,
  // h' = 0.5 * tanh(c').
  OpTester u("rnn");
  u.Input("Input", MakeTensor<float>({1, 1, 1}, {3}))
      .Inputs("PreState", {MakeTensor<float>({1, 1, 1}, {0.7f}),
                           MakeTensor<float>({1, 1, 1}, {2})})
      .Inputs("WeightList", {MakeTensor<float>({4, 1}, {0, 0, 0, 0}),
                             MakeTensor<float>({4, 1}, {0, 0, 0, 0}),
                             MakeTensor<float>({4}, {0, 0, 0, 0}),
                             MakeTensor<float>({4}, {0, 0, 0, 0})})
      .Output("Out")
      .Output("State", DataType::kFloat32, 2)
      .Attr("mode", std::string("LSTM"))
      .Attr("hidden_size", 1);
  u.Run();
  ExpectTensorNear(u.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 1}, {0.5f * std::tanh(1.0f)}));
  ExpectTensorNear(u.GetOutput("State", 1), MakeTensor<float>({1, 1, 1}, {1}));
}

TEST(RnnOp, LstmOneLayerUnidirectional) {
  RnnConfig cfg;
  CheckAgainstReference<float>(cfg);
  CheckAgainstReference<double>(cfg);
  cfg.steps = 13;
  cfg.batch = 1;
  cfg.input = 7;
  cfg.hidden = 5;
  cfg.seed = 2;
  CheckAgainstReference<float>(cfg);
}

TEST(RnnOp, LstmBidirectional) {
  RnnConfig cfg;
  cfg.bidirec = true;
  CheckAgainstReference<float>(cfg);
  CheckAgainstReference<double>(cfg);
}

TEST(RnnOp, LstmTwoLayersBidirectional) {
  RnnConfig cfg;
  cfg.layers = 2;
  cfg.bidirec = true;
  cfg.steps = 7;
  cfg.batch = 2;
  cfg.input = 13;
  cfg.hidden = 8;
  CheckAgainstReference<float>(cfg);
  CheckAgainstReference<double>(cfg);
  cfg.layers = 3;
  cfg.bidirec = false;
  cfg.seed = 3;
  CheckAgainstReference<double>(cfg);
}

TEST(RnnOp, SequenceLengthOne) {
  RnnConfig cfg;
  cfg.steps = 1;
  cfg.layers = 2;
  cfg.bidirec = true;
  CheckAgainstReference<float>(cfg);
  cfg.batch = 1;
  cfg.input = 1;
  cfg.hidden = 1;
  CheckAgainstReference<double>(cfg);
}

TEST(RnnOp, SequenceLengthMasking) {
  RnnConfig cfg;
  cfg.steps = 6;
  cfg.batch = 2;
  cfg.lengths = {6, 3};
  CheckAgainstReference<float>(cfg);
  cfg.bidirec = true;
  CheckAgainstReference<float>(cfg);
  cfg.layers = 2;
  CheckAgainstReference<double>(cfg);
  // Length 0 gives a zero output and leaves the state as given; length 1
  // in reverse is one step at t = 0.
  cfg.batch = 4;
  cfg.lengths = {0, 6, 1, 4};
  cfg.seed = 4;
  CheckAgainstReference<double>(cfg);
}

TEST(RnnOp, MaskedStepsAreZeroAndStateIsCarried) {
  // Independent of the reference: the masked tail of sample 1 is zero and
  // its final state equals a run on its first 3 steps alone.
  RnnConfig cfg;
  cfg.steps = 5;
  cfg.batch = 2;
  cfg.lengths = {5, 3};
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.Run();
  std::vector<float> out = ToVector<float>(t.GetOutput("Out"));
  for (int64_t step = 3; step < 5; ++step) {
    for (int64_t j = 0; j < cfg.hidden; ++j) {
      EXPECT_EQ(out[(step * 2 + 1) * cfg.hidden + j], 0.0f);
    }
  }
  RnnConfig short_cfg = cfg;
  short_cfg.steps = 3;
  short_cfg.lengths.clear();
  RnnInputs short_in = in;
  short_in.input = in.input.Slice(0, 3);
  OpTester s = MakeTester<float>(short_cfg, short_in);
  s.Run();
  for (int i = 0; i < 2; ++i) {
    std::vector<float> state = ToVector<float>(t.GetOutput("State", i));
    std::vector<float> short_state = ToVector<float>(s.GetOutput("State", i));
    for (int64_t j = 0; j < cfg.hidden; ++j) {
      EXPECT_NEAR(state[cfg.hidden + j], short_state[cfg.hidden + j], 1e-6);
    }
  }
}

TEST(RnnOp, SequenceLengthInt64) {
  RnnConfig cfg;
  cfg.bidirec = true;
  cfg.batch = 2;
  cfg.lengths = {2, 5};
  RnnInputs in = MakeInputs<float>(cfg);
  RnnConfig no_len = cfg;
  no_len.lengths.clear();
  OpTester t = MakeTester<float>(no_len, in);
  t.Input("SequenceLength", MakeTensor<int64_t>({2}, {2, 5}));
  t.Run();
  std::vector<Tensor> expected = ReferenceRnn<float>(cfg, in);
  ExpectTensorNear(t.GetOutput("Out"), expected[0], 2e-5, 2e-5);
}

TEST(RnnOp, InitialStatesMatter) {
  // The reference uses the random PreState; zero states must give another
  // result, so a kernel ignoring PreState fails the comparisons above.
  RnnConfig cfg;
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.Run();
  RnnInputs zero = in;
  for (auto& s : zero.pre_states) {
    s = MakeTensor<float>(s.dims(), std::vector<float>(s.numel(), 0.0f));
  }
  OpTester z = MakeTester<float>(cfg, zero);
  z.Run();
  std::vector<float> a = ToVector<float>(t.GetOutput("Out"));
  std::vector<float> b = ToVector<float>(z.GetOutput("Out"));
  EXPECT_GT(std::abs(a[0] - b[0]), 1e-3);
  ExpectTensorNear(z.GetOutput("Out"), ReferenceRnn<float>(cfg, zero)[0], 2e-5,
                   2e-5);
}

TEST(RnnOp, GruAndSimpleRnn) {
  for (const char* mode : {"GRU", "RNN_TANH", "RNN_RELU"}) {
    RnnConfig cfg;
    cfg.mode = mode;
    CheckAgainstReference<float>(cfg);
    cfg.layers = 2;
    cfg.bidirec = true;
    cfg.batch = 3;
    cfg.lengths = {5, 2, 4};
    cfg.seed = 5;
    CheckAgainstReference<float>(cfg);
    CheckAgainstReference<double>(cfg);
  }
}

TEST(RnnOp, ModelShapedAndMultiThreaded) {
  // The shape of the PP-OCRv2 recognizer's neck: T = 25, 2-layer
  // bidirectional LSTM, H = 64 (I reduced from 512).
  RnnConfig cfg;
  cfg.layers = 2;
  cfg.bidirec = true;
  cfg.steps = 25;
  cfg.batch = 1;
  cfg.input = 96;
  cfg.hidden = 64;
  CheckAgainstReference<float>(cfg, 1e-4, 1);
  cfg.batch = 13;
  cfg.steps = 9;
  cfg.lengths = {9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 9, 5};
  CheckAgainstReference<float>(cfg, 1e-4, 4);
}

TEST(RnnOp, TrainingOutputsDeclared) {
  // Programs list DropoutState and Reserve; they stay untouched.
  RnnConfig cfg;
  cfg.bidirec = true;
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.Output("DropoutState", DataType::kUInt8).Output("Reserve");
  t.Attr("is_test", true).Attr("dropout_prob", 0.0f).Attr("seed", 0);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), ReferenceRnn<float>(cfg, in)[0], 2e-5,
                   2e-5);
}

TEST(RnnOp, EmptyTime) {
  // T = 0: Out is [0, N, D*H] and State is PreState.
  RnnConfig cfg;
  cfg.steps = 0;
  cfg.bidirec = true;
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{0, 3, 12}));
  ExpectTensorNear(t.GetOutput("State", 0), in.pre_states[0], 0, 0);
  ExpectTensorNear(t.GetOutput("State", 1), in.pre_states[1], 0, 0);
}

TEST(RnnOp, EmptyBatchOfManySteps) {
  // N = 0 with a hostile T of 2^40: every output is empty, at once (the
  // steps ran one by one, each with nothing to compute).
  RnnConfig cfg;
  cfg.steps = int64_t{1} << 40;
  cfg.batch = 0;
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{int64_t{1} << 40, 0, 6}));
  EXPECT_EQ(t.GetOutput("State", 0).dims(), (DDim{1, 0, 6}));
}

TEST(RnnOp, AttributeDefaults) {
  // num_layers 1, is_bidirec false, hidden_size 100 when absent.
  RnnConfig cfg;
  cfg.steps = 2;
  cfg.batch = 1;
  cfg.input = 3;
  cfg.hidden = 100;
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t("rnn");
  t.Input("Input", in.input)
      .Inputs("PreState", in.pre_states)
      .Inputs("WeightList", in.weights)
      .Output("Out")
      .Output("State", DataType::kFloat32, 2)
      .Attr("mode", std::string("LSTM"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), ReferenceRnn<float>(cfg, in)[0], 2e-5,
                   2e-5);
}

TEST(RnnOp, Errors) {
  RnnConfig cfg;
  cfg.bidirec = true;
  const RnnInputs good = MakeInputs<float>(cfg);
  auto run = [&](const RnnInputs& in, const RnnConfig& c) {
    OpTester t = MakeTester<float>(c, in);
    t.Run();
  };

  RnnInputs missing = good;
  missing.weights.pop_back();
  ExpectError([&] { run(missing, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "WeightList", "8", "got 7"});

  RnnInputs rank2 = good;
  rank2.input = RandomTensor<float>({5, 12}, -1, 1, 1);
  ExpectError([&] { run(rank2, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "3-D", "[5, 12]"});

  RnnConfig other_hidden = cfg;
  other_hidden.hidden = 5;
  ExpectError([&] { run(good, other_hidden); }, ErrorCode::kInvalidArgument,
              {"rnn", "PreState[0]", "[2, 3, 6]", "[2, 3, 5]"});

  RnnInputs bad_hh = good;
  bad_hh.weights[3] = RandomTensor<float>({24, 5}, -1, 1, 1);
  ExpectError([&] { run(bad_hh, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "WeightList[3]", "W_hh", "[24, 5]", "[24, 6]"});

  RnnInputs bad_ih = good;
  bad_ih.weights[0] = RandomTensor<float>({24, 3}, -1, 1, 1);
  ExpectError([&] { run(bad_ih, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "WeightList[0]", "W_ih", "[24, 3]", "[24, 4]"});

  RnnInputs bad_bias = good;
  bad_bias.weights[5] = RandomTensor<float>({18}, -1, 1, 1);
  ExpectError([&] { run(bad_bias, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "WeightList[5]", "b_hh", "[18]", "[24]"});

  RnnInputs one_state = good;
  one_state.pre_states.pop_back();
  ExpectError([&] { run(one_state, cfg); }, ErrorCode::kInvalidArgument,
              {"rnn", "LSTM", "2 PreState", "got 1"});

  ExpectError(
      [&] {
        OpTester t = MakeTester<float>(cfg, good);
        t.Output("State", DataType::kFloat32, 1);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"rnn", "LSTM", "2 State outputs", "got 1"});

  RnnConfig bad_len = cfg;
  bad_len.lengths = {5, 6, 1};
  ExpectError([&] { run(good, bad_len); }, ErrorCode::kInvalidArgument,
              {"rnn", "SequenceLength[1] = 6", "[0, 5]"});

  ExpectError(
      [&] {
        OpTester t = MakeTester<float>(cfg, good);
        t.Input("SequenceLength", MakeTensor<int32_t>({2}, {1, 2}));
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"rnn", "SequenceLength", "[3]", "[2]"});

  RnnConfig bad_mode = cfg;
  bad_mode.mode = "LSTMP";
  ExpectError([&] { run(good, bad_mode); }, ErrorCode::kInvalidArgument,
              {"rnn", "mode", "LSTMP"});

  ExpectError(
      [&] {
        OpTester t("rnn");
        t.Input("Input", good.input)
            .Inputs("PreState", good.pre_states)
            .Inputs("WeightList", good.weights)
            .Output("Out")
            .Output("State", DataType::kFloat32, 2);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"rnn", "mode"});
}

TEST(RnnOp, AllKernelsAgree) {
  RnnConfig cfg;
  cfg.layers = 2;
  cfg.bidirec = true;
  cfg.lengths = {5, 3, 1};
  RnnInputs in = MakeInputs<float>(cfg);
  OpTester t = MakeTester<float>(cfg, in);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
