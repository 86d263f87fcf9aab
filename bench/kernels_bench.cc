// Hot kernels through the executor (OpTester-free: one-op programs via the
// public API would add feed/fetch; these call the registered kernels the
// way the executor does), PLAIN against MKLDNN where both exist.
#include <benchmark/benchmark.h>

#include "framework/executor.h"
#include "framework/program_builder.h"

namespace {

namespace fw = paddle_lite::framework;
using fw::DataType;

fw::Tensor Filled(const fw::DDim& dims, float v) {
  fw::Tensor t;
  t.Resize(dims);
  float* p = t.mutable_data<float>(paddle_lite::platform::CPUPlace{});
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = v * ((i % 13) - 6);
  return t;
}

// Runs one op program repeatedly with the given library preferred.
class OneOp {
 public:
  OneOp(const fw::ProgramDesc& program,
        fw::Scope* weights,
        const std::string& library,
        int threads)
      : program_(program),
        pool_(
            paddle_lite::platform::DeviceContextOptions::WithThreads(threads)) {
    fw::KernelPreference pref;
    if (library != "PLAIN") {
      pref.libraries.push_back(fw::LibraryType::FromName(library));
    }
    executor_ = std::make_unique<fw::Executor>(program_, pref, &pool_);
    scope_ = &weights->NewScope();
  }
  void Feed(std::vector<fw::Tensor> inputs) {
    *scope_->Var("feed")->GetMutable<fw::TensorList>() = std::move(inputs);
  }
  void Run() { executor_->Run(0, scope_); }
  std::string Kernel() {
    for (auto& p : executor_->Prepare(0).ops) {
      if (p.op && p.op->IsKernelOp()) return p.choice.chosen.library.name();
    }
    return "";
  }

 private:
  fw::ProgramDesc program_;
  paddle_lite::platform::DeviceContextPool pool_;
  std::unique_ptr<fw::Executor> executor_;
  fw::Scope* scope_;
};

// Args: channels, size (square), and output channels when they differ
// (the DB detectors' neck: 96 in, 24 out).
void BM_Conv3x3(benchmark::State& state, const std::string& library) {
  int64_t c = state.range(0), hw = state.range(1);
  int64_t out_c = state.range(2) > 0 ? state.range(2) : c;
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {1, c, hw, hw});
  auto w = b.AddParameter("w", Filled({out_c, c, 3, 3}, 0.01f));
  auto y = b.AddVar("y");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {y}}},
          {{"paddings", std::vector<int32_t>{1, 1}}});
  b.AddOutput(y);
  fw::Scope weights;
  weights.Var("w")->GetMutable<fw::Tensor>()->ShareDataWith(
      b.parameters().FindVar("w")->Get<fw::Tensor>());
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({1, c, hw, hw}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  double flops = 2.0 * c * out_c * 9 * hw * hw;
  state.counters["GFLOPs"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::OneK::kIs1000);
  state.counters["GFLOPs"] = state.counters["GFLOPs"].value / 1e9;
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_Conv3x3, plain, std::string("PLAIN"))
    ->Args({32, 80, 0})
    ->Args({64, 40, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Conv3x3, mkldnn, std::string("MKLDNN"))
    ->Args({32, 80, 0})
    ->Args({64, 40, 0})
    ->Args({96, 160, 24})
    ->Args({96, 80, 24})
    ->Unit(benchmark::kMillisecond);

void BM_DepthwiseConv(benchmark::State& state, const std::string& library) {
  int64_t c = state.range(0), hw = state.range(1);
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {1, c, hw, hw});
  auto w = b.AddParameter("w", Filled({c, 1, 3, 3}, 0.1f));
  auto y = b.AddVar("y");
  b.AddOp("depthwise_conv2d", {{"Input", {x}}, {"Filter", {w}}},
          {{"Output", {y}}},
          {{"paddings", std::vector<int32_t>{1, 1}},
           {"groups", static_cast<int32_t>(c)}});
  b.AddOutput(y);
  fw::Scope weights;
  weights.Var("w")->GetMutable<fw::Tensor>()->ShareDataWith(
      b.parameters().FindVar("w")->Get<fw::Tensor>());
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({1, c, hw, hw}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_DepthwiseConv, plain, std::string("PLAIN"))
    ->Args({64, 80})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DepthwiseConv, mkldnn, std::string("MKLDNN"))
    ->Args({64, 80})
    ->Unit(benchmark::kMillisecond);

void BM_MatMul(benchmark::State& state, const std::string& library) {
  int64_t n = state.range(0);
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {n, n});
  auto w = b.AddParameter("w", Filled({n, n}, 0.01f));
  auto y = b.AddVar("y");
  b.AddOp("matmul_v2", {{"X", {x}}, {"Y", {w}}}, {{"Out", {y}}});
  b.AddOutput(y);
  fw::Scope weights;
  weights.Var("w")->GetMutable<fw::Tensor>()->ShareDataWith(
      b.parameters().FindVar("w")->Get<fw::Tensor>());
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({n, n}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_MatMul, plain, std::string("PLAIN"))
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MatMul, mkldnn, std::string("MKLDNN"))
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);

void BM_ElementwiseAddBias(benchmark::State& state,
                           const std::string& library) {
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {1, 64, 80, 80});
  auto bias = b.AddParameter("b", Filled({64}, 0.1f));
  auto y = b.AddVar("y");
  b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {bias}}}, {{"Out", {y}}},
          {{"axis", int32_t{1}}});
  b.AddOutput(y);
  fw::Scope weights;
  weights.Var("b")->GetMutable<fw::Tensor>()->ShareDataWith(
      b.parameters().FindVar("b")->Get<fw::Tensor>());
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({1, 64, 80, 80}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_ElementwiseAddBias, plain, std::string("PLAIN"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ElementwiseAddBias, mkldnn, std::string("MKLDNN"))
    ->Unit(benchmark::kMicrosecond);

// A pointwise (1x1) conv, the bulk of mobile networks' multiply-adds.
void BM_Conv1x1(benchmark::State& state, const std::string& library) {
  const int64_t cin = state.range(0), cout = state.range(1);
  const int64_t h = state.range(2), w = state.range(3);
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {1, cin, h, w});
  auto f = b.AddParameter("w", Filled({cout, cin, 1, 1}, 0.01f));
  auto y = b.AddVar("y");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {f}}}, {{"Output", {y}}}, {});
  b.AddOutput(y);
  fw::Scope weights;
  weights.Var("w")->GetMutable<fw::Tensor>()->ShareDataWith(
      b.parameters().FindVar("w")->Get<fw::Tensor>());
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({1, cin, h, w}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_Conv1x1, plain, std::string("PLAIN"))
    ->Args({16, 48, 24, 96})
    ->Args({48, 96, 6, 24})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Conv1x1, mkldnn, std::string("MKLDNN"))
    ->Args({16, 48, 24, 96})
    ->Args({48, 96, 6, 24})
    ->Unit(benchmark::kMicrosecond);

// pool2d: max 2x2 stride 2, and the whole-image average of an SE block.
void BM_Pool(benchmark::State& state, const std::string& library) {
  const bool global = state.range(0) != 0;
  const int64_t c = state.range(1), h = state.range(2), w = state.range(3);
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {1, c, h, w});
  auto y = b.AddVar("y");
  if (global) {
    b.AddOp("pool2d", {{"X", {x}}}, {{"Out", {y}}},
            {{"pooling_type", std::string("avg")},
             {"ksize", std::vector<int32_t>{1, 1}},
             {"adaptive", true}});
  } else {
    b.AddOp("pool2d", {{"X", {x}}}, {{"Out", {y}}},
            {{"pooling_type", std::string("max")},
             {"ksize", std::vector<int32_t>{2, 2}},
             {"strides", std::vector<int32_t>{2, 2}}});
  }
  b.AddOutput(y);
  fw::Scope weights;
  OneOp op(b.Build(), &weights, library, 1);
  op.Feed({Filled({1, c, h, w}, 0.1f)});
  op.Run();
  for (auto _ : state) op.Run();
  state.SetLabel(op.Kernel());
}
BENCHMARK_CAPTURE(BM_Pool, plain, std::string("PLAIN"))
    ->Args({0, 200, 6, 24})
    ->Args({1, 96, 6, 24})
    ->Args({1, 16, 24, 96})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Pool, mkldnn, std::string("MKLDNN"))
    ->Args({0, 200, 6, 24})
    ->Args({1, 96, 6, 24})
    ->Args({1, 16, 24, 96})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
