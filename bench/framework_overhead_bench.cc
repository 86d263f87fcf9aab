// Framework overhead: a chain of 500 elementwise_add ops on 1-element
// tensors, so the kernels do almost nothing and the time is the runtime's
// own per-op cost. Reported per op (counter "ns_per_op").
#include <benchmark/benchmark.h>

#include "framework/program_builder.h"
#include "framework/program_io.h"
#include "framework/model_io.h"
#include "paddle_lite/paddle_lite.h"

namespace {

using paddle_lite::framework::DataType;

std::unique_ptr<paddle_lite::Predictor> ChainPredictor(int ops, bool replay) {
  paddle_lite::framework::ProgramBuilder b;
  std::string x = b.AddInput("x", DataType::kFloat32, {1});
  paddle_lite::framework::Tensor one;
  one.Resize({1});
  *one.mutable_data<float>(paddle_lite::platform::CPUPlace{}) = 1.0f;
  std::string y = b.AddParameter("one", one);
  std::string prev = x;
  for (int i = 0; i < ops; ++i) {
    std::string out = b.AddVar("t" + std::to_string(i));
    b.AddOp("elementwise_add", {{"X", {prev}}, {"Y", {y}}}, {{"Out", {out}}},
            {{"axis", int32_t{-1}}});
    prev = out;
  }
  b.AddOutput(prev);
  std::string program =
      paddle_lite::framework::SerializeProgramDesc(b.Build());
  std::string params;
  paddle_lite::framework::SerializeTensor(one, &params);
  paddle_lite::Config config;
  config.SetModelBuffer(program.data(), program.size(), params.data(),
                        params.size());
  config.SwitchIrOptim(false);  // keep all 500 ops (constant folding would not
                                // apply, but be explicit)
  config.EnableMemoryOptim(replay);
  auto predictor = paddle_lite::CreatePredictor(config);
  auto in = predictor->GetInputHandle("x");
  in->Reshape({1});
  float zero = 0;
  in->CopyFromCpu(&zero);
  return predictor;
}

void BM_ChainOfTinyOps(benchmark::State& state) {
  const int ops = 500;
  auto predictor = ChainPredictor(ops, state.range(0) != 0);
  predictor->Run();  // records the plan
  for (auto _ : state) predictor->Run();
  // seconds / (iterations * ops * 1e-9) = nanoseconds per op
  state.counters["ns_per_op"] = benchmark::Counter(
      ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                      benchmark::Counter::kInvert);
  auto stats = predictor->last_run_stats();
  state.counters["ops_inferred"] = stats.ops_inferred;
  state.SetLabel(stats.replayed ? "plan replay" : "no replay");
}
BENCHMARK(BM_ChainOfTinyOps)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
