// Writes the demo model shipped in models/demo_convnet: a small image
// classifier (conv-bn-relu-pool, conv-relu-global pool, fc, softmax) with
// fixed pseudo-random weights, in PaddlePaddle's .pdmodel/.pdiparams
// format, plus an input and the output this runtime computes for it.
//
//   make_demo_model OUT_DIR
#include <cmath>
#include <cstdint>
#include <iostream>
#include <sys/stat.h>

#include "framework/npy.h"
#include "framework/program_builder.h"
#include "paddle_lite/paddle_lite.h"

namespace fw = paddle_lite::framework;
using fw::DataType;
using fw::Tensor;

namespace {

// A fixed linear congruential generator: the same bytes on every platform
// (std:: distributions are implementation-defined).
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  float Uniform(float lo, float hi) {
    state_ = state_ * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state_ >> 8) / 16777216.0f;
  }

 private:
  uint32_t state_;
};

Tensor Filled(const fw::DDim& dims, Lcg* rng, float lo, float hi) {
  Tensor t;
  t.Resize(dims);
  float* p = t.mutable_data<float>(paddle_lite::platform::CPUPlace{});
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = rng->Uniform(lo, hi);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_demo_model OUT_DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  Lcg rng(20261121);
  fw::ProgramBuilder b;
  using Ints = std::vector<int32_t>;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 32, 32});

  // conv1 3->8, 3x3, pad 1; batch norm; relu; 2x2 max pool.
  auto w1 = b.AddParameter("conv1.w_0", Filled({8, 3, 3, 3}, &rng, -0.4f, 0.4f));
  auto c1 = b.AddVar("conv1.tmp_0");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w1}}}, {{"Output", {c1}}},
          {{"strides", Ints{1, 1}}, {"paddings", Ints{1, 1}},
           {"dilations", Ints{1, 1}}, {"groups", int32_t{1}},
           {"data_format", std::string("NCHW")}});
  auto scale = b.AddParameter("bn1.w_0", Filled({8}, &rng, 0.5f, 1.5f));
  auto bias = b.AddParameter("bn1.b_0", Filled({8}, &rng, -0.2f, 0.2f));
  auto mean = b.AddParameter("bn1.w_1", Filled({8}, &rng, -0.1f, 0.1f));
  auto var = b.AddParameter("bn1.w_2", Filled({8}, &rng, 0.5f, 1.0f));
  auto bn = b.AddVar("bn1.tmp_0");
  b.AddOp("batch_norm",
          {{"X", {c1}}, {"Scale", {scale}}, {"Bias", {bias}},
           {"Mean", {mean}}, {"Variance", {var}}},
          {{"Y", {bn}}, {"MeanOut", {mean}}, {"VarianceOut", {var}}},
          {{"epsilon", 1e-5f}, {"is_test", true},
           {"data_layout", std::string("NCHW")}});
  auto r1 = b.AddVar("relu1.tmp_0");
  b.AddOp("relu", {{"X", {bn}}}, {{"Out", {r1}}});
  auto p1 = b.AddVar("pool1.tmp_0");
  b.AddOp("pool2d", {{"X", {r1}}}, {{"Out", {p1}}},
          {{"pooling_type", std::string("max")}, {"ksize", Ints{2, 2}},
           {"strides", Ints{2, 2}}, {"paddings", Ints{0, 0}}});

  // conv2 8->16, 3x3 stride 2, with bias; relu; global average pool.
  auto w2 = b.AddParameter("conv2.w_0", Filled({16, 8, 3, 3}, &rng, -0.2f, 0.2f));
  auto b2 = b.AddParameter("conv2.b_0", Filled({16}, &rng, -0.1f, 0.1f));
  auto c2 = b.AddVar("conv2.tmp_0");
  b.AddOp("conv2d", {{"Input", {p1}}, {"Filter", {w2}}}, {{"Output", {c2}}},
          {{"strides", Ints{2, 2}}, {"paddings", Ints{1, 1}}});
  auto c2b = b.AddVar("conv2.tmp_1");
  b.AddOp("elementwise_add", {{"X", {c2}}, {"Y", {b2}}}, {{"Out", {c2b}}},
          {{"axis", int32_t{1}}});
  auto r2 = b.AddVar("relu2.tmp_0");
  b.AddOp("relu", {{"X", {c2b}}}, {{"Out", {r2}}});
  auto p2 = b.AddVar("pool2.tmp_0");
  b.AddOp("pool2d", {{"X", {r2}}}, {{"Out", {p2}}},
          {{"pooling_type", std::string("avg")}, {"ksize", Ints{1, 1}},
           {"global_pooling", true}});

  // fc 16->10 as flatten + mul + add, then softmax.
  auto flat = b.AddVar("flatten.tmp_0");
  b.AddOp("flatten_contiguous_range", {{"X", {p2}}}, {{"Out", {flat}}},
          {{"start_axis", int32_t{1}}, {"stop_axis", int32_t{-1}}});
  auto fw_ = b.AddParameter("fc.w_0", Filled({16, 10}, &rng, -0.05f, 0.05f));
  auto fb = b.AddParameter("fc.b_0", Filled({10}, &rng, -0.1f, 0.1f));
  auto m = b.AddVar("fc.tmp_0");
  b.AddOp("mul", {{"X", {flat}}, {"Y", {fw_}}}, {{"Out", {m}}},
          {{"x_num_col_dims", int32_t{1}}, {"y_num_col_dims", int32_t{1}}});
  auto logits = b.AddVar("fc.tmp_1");
  b.AddOp("elementwise_add", {{"X", {m}}, {"Y", {fb}}}, {{"Out", {logits}}},
          {{"axis", int32_t{1}}});
  auto prob = b.AddVar("softmax.tmp_0");
  b.AddOp("softmax", {{"X", {logits}}}, {{"Out", {prob}}},
          {{"axis", int32_t{-1}}});
  b.AddOutput(prob);
  b.Save(dir + "/model");

  // A batch of two inputs, and what this runtime computes for them.
  Tensor input = Filled({2, 3, 32, 32}, &rng, -1.0f, 1.0f);
  fw::WriteNpy(dir + "/input_x.npy", input);
  paddle_lite::Config config(dir);
  auto predictor = paddle_lite::CreatePredictor(config);
  auto in = predictor->GetInputHandle("x");
  in->Reshape(input.dims());
  in->CopyFromCpu(input.data<float>());
  predictor->Run();
  auto out = predictor->GetOutputHandle(prob);
  Tensor result;
  result.Resize(out->shape());
  out->CopyToCpu(result.mutable_data<float>(paddle_lite::platform::CPUPlace{}));
  fw::WriteNpy(dir + "/expected_softmax.tmp_0.npy", result);
  std::cout << "wrote " << dir << ": model.pdmodel, model.pdiparams, "
            << "input_x.npy, expected_softmax.tmp_0.npy\n";
  return 0;
}
