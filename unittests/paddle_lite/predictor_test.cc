// The public API on the shipped demo model (and a real one when
// ../shared/models is there): paths and buffers, errors, reshape between
// runs, and clones running in parallel.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include "framework/model_io.h"
#include "framework/npy.h"
#include "framework/program_builder.h"
#include "framework/program_io.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/embedding_model.h"
#include "unittests/test_utils/half_model.h"
#include "unittests/test_utils/loop_model.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/op_tester.h"
#include "unittests/test_utils/predictor_runs.h"
#include "unittests/test_utils/scratch_dir.h"

namespace paddle_lite {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::vector<float> RunDemo(Predictor* p, const framework::Tensor& input) {
  auto in = p->GetInputHandle("x");
  in->Reshape(input.dims());
  in->CopyFromCpu(input.data<float>());
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  int64_t n = 0;
  const float* data = out->data<float>(&n);
  return std::vector<float>(data, data + n);
}

framework::Tensor DemoInput() {
  return framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
}

std::vector<float> DemoExpected() {
  return testing::ToVector<float>(framework::ReadNpy(
      testing::DemoModelDir() + "/expected_softmax.tmp_0.npy"));
}

TEST(Predictor, RunsFromFolderFileAndBuffers) {
  auto expected = DemoExpected();
  Config by_dir(testing::DemoModelDir());
  Config by_files(testing::DemoModelDir() + "/model.pdmodel",
                  testing::DemoModelDir() + "/model.pdiparams");
  Config by_buffers;
  std::string prog = Slurp(testing::DemoModelDir() + "/model.pdmodel");
  std::string params = Slurp(testing::DemoModelDir() + "/model.pdiparams");
  by_buffers.SetModelBuffer(prog.data(), prog.size(), params.data(),
                            params.size());
  for (Config* c : {&by_dir, &by_files, &by_buffers}) {
    auto p = CreatePredictor(*c);
    EXPECT_EQ(p->GetInputNames(), std::vector<std::string>{"x"});
    EXPECT_EQ(p->GetOutputNames(), std::vector<std::string>{"softmax.tmp_0"});
    auto got = RunDemo(p.get(), DemoInput());
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], expected[i], 1e-6);
    }
  }
}

// A model whose op writes over its own input at another size (a hostile
// or broken file: the second pool2d's Out renamed to its X, whose oneDNN
// layout the shape step left at the input's size) is an error naming the
// op, not a heap overrun (it crashed CreatePredictor's warm-up).
TEST(Predictor, AnOpResizingItsOwnInputIsAnError) {
  framework::ProgramDesc program = framework::ParseProgramDesc(
      Slurp(testing::DemoModelDir() + "/model.pdmodel"), "model.pdmodel");
  int pools = 0;
  for (auto& op : program.blocks[0].ops) {
    if (op.type == "pool2d" && ++pools == 2) {
      op.SetOutput("Out", op.Input("X"));
    }
  }
  ASSERT_EQ(pools, 2);
  const std::string prog = framework::SerializeProgramDesc(program);
  const std::string params =
      Slurp(testing::DemoModelDir() + "/model.pdiparams");
  for (bool warmup : {true, false}) {
    Config config;
    config.SetModelBuffer(prog.data(), prog.size(), params.data(),
                          params.size());
    config.EnableWarmup(warmup);
    try {
      auto p = CreatePredictor(config);
      RunDemo(p.get(), DemoInput());
      ADD_FAILURE() << "ran";
    } catch (const Exception& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find("op 'pool2d'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("is also an input of the op"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Predictor, HandlesReportShapeTypeAndLoD) {
  auto p = CreatePredictor(Config(testing::DemoModelDir()));
  auto in = p->GetInputHandle("x");
  EXPECT_EQ(in->type(), DataType::FLOAT32);
  in->Reshape({1, 3, 32, 32});
  EXPECT_EQ(in->shape(), (std::vector<int64_t>{1, 3, 32, 32}));
  float* data = in->mutable_data<float>();  // zero-copy input
  for (int i = 0; i < 3 * 32 * 32; ++i) data[i] = 0.5f;
  in->SetLoD({{0, 1}});
  EXPECT_EQ(in->lod(), (LoD{{0, 1}}));
  p->Run();
  auto out = p->GetOutputHandle("softmax.tmp_0");
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{1, 10}));
  EXPECT_EQ(out->type(), DataType::FLOAT32);
  EXPECT_STREQ(DataTypeName(out->type()), "float32");
  // A LoD that does not describe the input's rows is refused at Run,
  // naming the input, though no op of this program reads it.
  for (const LoD& bad : {LoD{{0, 2}}, LoD{{1, 1}}, LoD{{0, 1, 0, 1}},
                         LoD{{0, 2}, {0, 1}}, LoD{{0}, {}}}) {
    in->SetLoD(bad);
    testing::ExpectError([&] { p->Run(); }, ErrorCode::kInvalidArgument,
                         {"Input 'x'", "LoD level", "[1, 3, 32, 32]"});
  }
  // A long level is shown in part, with its count.
  std::vector<size_t> many(1000, 0);
  in->SetLoD({many});
  testing::ExpectError([&] { p->Run(); }, ErrorCode::kInvalidArgument,
                       {"Input 'x'",
                        "[0, 0, 0, 0, 0, 0, 0, ..., 0] (1000 "
                        "offsets)"});
  in->SetLoD({{0, 1}, {0, 1}});
  p->Run();
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{1, 10}));
}

TEST(Predictor, ErrorsAreTypedAndSayWhatToDo) {
  auto expect = [](const std::function<void()>& fn, ErrorCode code,
                   const std::string& fragment) {
    testing::ExpectError(fn, code, {fragment});
  };
  expect([] { CreatePredictor(Config("/no/such/model")); },
         ErrorCode::kNotFound, "/no/such/model");
  expect([] { CreatePredictor(Config()); }, ErrorCode::kInvalidArgument,
         "names no model");
  auto p = CreatePredictor(Config(testing::DemoModelDir()));
  expect([&] { p->GetInputHandle("y"); }, ErrorCode::kNotFound, "'x'");
  expect([&] { p->GetOutputHandle("nope"); }, ErrorCode::kNotFound,
         "softmax.tmp_0");
  expect([&] { p->Run(); }, ErrorCode::kPreconditionNotMet, "'x'");
  auto in = p->GetInputHandle("x");
  expect([&] { in->CopyFromCpu(static_cast<const float*>(nullptr)); },
         ErrorCode::kPreconditionNotMet, "Reshape");
  // An int input where the model wants float32.
  in->Reshape({1, 3, 32, 32});
  std::vector<int32_t> ints(3 * 32 * 32, 1);
  in->CopyFromCpu(ints.data());
  expect([&] { p->Run(); }, ErrorCode::kInvalidArgument, "float32");
  // A wrong channel count fails in the conv with the shapes in the message.
  in->Reshape({1, 4, 32, 32});
  std::vector<float> four(4 * 32 * 32, 1.0f);
  in->CopyFromCpu(four.data());
  expect([&] { p->Run(); }, ErrorCode::kInvalidArgument, "conv2d");
  auto out = p->GetOutputHandle("softmax.tmp_0");
  expect([&] { out->Reshape({1}); }, ErrorCode::kPreconditionNotMet,
         "read-only");
  expect([] { Config().SetDevice("cuda:x"); }, ErrorCode::kInvalidArgument,
         "cuda:x");
  // A memory place, not one to run on.
  expect([] { Config().SetDevice("cuda_pinned"); }, ErrorCode::kInvalidArgument,
         "page-locked host memory");
  expect([] { Config().SetCpuThreads(0); }, ErrorCode::kInvalidArgument,
         "threads");
  // Refused as the C API refuses them.
  expect([] { Config().SetMaxLoopIterations(-1); }, ErrorCode::kInvalidArgument,
         "SetMaxLoopIterations: -1");
  expect([] { Config().SetNarrowRunLimit(-0.5); }, ErrorCode::kInvalidArgument,
         "SetNarrowRunLimit: -0.5");
  // A misspelt kernel library, which would leave every op on PLAIN.
  Config misspelt(testing::DemoModelDir());
  misspelt.SetKernelLibraries({"MKLDMN"});
  expect([&] { CreatePredictor(misspelt); }, ErrorCode::kInvalidArgument,
         "No kernel library is named 'MKLDMN' (known: PLAIN, MKLDNN");
  Config known(testing::DemoModelDir());
  known.SetKernelLibraries({"CUDNN", "MKLDNN"});
  EXPECT_NE(CreatePredictor(known), nullptr);
}

// PDLITE_DEVICE=cuda_pinned, for a config that sets no device, is refused
// as SetDevice refuses it. A test of its own: no predictor (with threads
// that may read the environment) lives while the environment changes.
TEST(Predictor, PinnedMemoryFromTheEnvironmentIsNoDevice) {
  const char* before = std::getenv("PDLITE_DEVICE");
  const std::string kept = before != nullptr ? before : "";
  setenv("PDLITE_DEVICE", "cuda_pinned", 1);
  testing::ExpectError([] { CreatePredictor(Config(testing::DemoModelDir())); },
                       ErrorCode::kInvalidArgument,
                       {"PDLITE_DEVICE 'cuda_pinned'"});
  if (before != nullptr) {
    setenv("PDLITE_DEVICE", kept.c_str(), 1);
  } else {
    unsetenv("PDLITE_DEVICE");
  }
}

TEST(Predictor, ReshapeBetweenRunsGivesFreshAnswers) {
  // Bit for bit only on one kernel library: a predictor's first runs of a
  // small input go to the generic kernels.
  Config config(testing::DemoModelDir());
  config.EnableGenericKernels(false);
  auto p = CreatePredictor(config);
  auto input = DemoInput();
  auto full = RunDemo(p.get(), input);
  for (int round = 0; round < 3; ++round) {
    auto first = RunDemo(p.get(), input.Slice(0, 1));
    ASSERT_EQ(first.size(), 10u);
    for (int k = 0; k < 10; ++k) EXPECT_NEAR(first[k], full[k], 1e-6);
    auto second = RunDemo(p.get(), input.Slice(1, 2));
    for (int k = 0; k < 10; ++k) EXPECT_NEAR(second[k], full[10 + k], 1e-6);
    auto again = RunDemo(p.get(), input);
    EXPECT_EQ(again, full);
  }
}

// Clones share the weights and run in parallel threads with identical
// results (run under ThreadSanitizer by scripts/sanitize.sh). With the
// generic kernels on, each predictor's first runs go to them and later
// ones to the specialised kernels: results then agree within `tolerance`
// (a race would not).
void CheckClonesInParallel(const std::string& dir,
                           const framework::Tensor& input,
                           const std::string& input_name,
                           bool generic_kernels) {
  Config config(dir);
  config.SetCpuThreads(2);
  config.EnableGenericKernels(generic_kernels);
  auto main = CreatePredictor(config);
  auto run = [&](Predictor* p) {
    auto in = p->GetInputHandle(input_name);
    in->Reshape(input.dims());
    in->CopyFromCpu(input.data<float>());
    p->Run();
    auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
    int64_t n = 0;
    const float* d = out->data<float>(&n);
    return std::vector<float>(d, d + n);
  };
  auto reference = run(main.get());
  std::vector<std::unique_ptr<Predictor>> clones;
  for (int i = 0; i < 3; ++i) clones.push_back(main->Clone());
  std::vector<std::vector<float>> results(clones.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < clones.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 3; ++k) results[i] = run(clones[i].get());
    });
  }
  for (auto& t : threads) t.join();
  auto expect_same = [&](const std::vector<float>& r) {
    if (!generic_kernels) {
      EXPECT_EQ(r, reference);
      return;
    }
    ASSERT_EQ(r.size(), reference.size());
    for (size_t k = 0; k < r.size(); ++k) {
      EXPECT_NEAR(r[k], reference[k], 1e-5f) << "at " << k;
    }
  };
  for (auto& r : results) expect_same(r);
  // The original still works after its clones ran.
  expect_same(run(main.get()));
}

TEST(Predictor, ClonesRunInParallelWithIdenticalResults) {
  for (bool generic : {false, true}) {
    SCOPED_TRACE(generic ? "generic kernels on" : "generic kernels off");
    CheckClonesInParallel(testing::DemoModelDir(), DemoInput(), "x", generic);
  }
}

TEST(Predictor, RealModelClonesRunInParallel) {
  std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  for (bool generic : {false, true}) {
    SCOPED_TRACE(generic ? "generic kernels on" : "generic kernels off");
    CheckClonesInParallel(dir, framework::ReadNpy(dir + "/ref/input_x.npy"),
                          "x", generic);
  }
}

// A program may write its own weights: a scale writes `b` back onto itself,
// or in place onto a view of it (reshape2 shares b's buffer), then y = x +
// 2b. Clones share the weights, so each run writes its own copy, made from
// the loaded values: every run of every clone gives the same answer, and
// clones running at once do not race on `b` (run under ThreadSanitizer by
// scripts/sanitize.sh). Before, each run doubled the shared `b` again.
TEST(Predictor, ProgramsThatWriteTheirWeightsStartEachRunFromTheModel) {
  for (bool through_a_view : {false, true}) {
    SCOPED_TRACE(through_a_view ? "through a view" : "the weight itself");
    testing::ScratchDir dir("writes_weight");
    const std::string prefix = dir.path() + "/model";
    {
      framework::ProgramBuilder b;
      auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 4});
      framework::Tensor bias;
      bias.Resize({4});
      float* values = bias.mutable_data<float>(platform::CPUPlace{});
      for (int i = 0; i < 4; ++i) values[i] = static_cast<float>(i + 1);
      auto written = b.AddParameter("b", bias);
      if (through_a_view) {
        written = b.AddVar("b_view");
        b.AddVar("b_shape");
        b.AddOp("reshape2", {{"X", {"b"}}},
                {{"Out", {written}}, {"XShape", {"b_shape"}}},
                {{"shape", std::vector<int>{1, 4}}});
      }
      b.AddOp("scale", {{"X", {written}}}, {{"Out", {written}}},
              {{"scale", 2.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
      auto y = b.AddVar("y");
      b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {written}}}, {{"Out", {y}}},
              {{"axis", -1}});
      b.AddOutput(y);
      b.Save(prefix);
    }
    const std::vector<float> input = {10, 20, 30, 40, 50, 60, 70, 80};
    const std::vector<float> expected = {12, 24, 36, 48, 52, 64, 76, 88};
    auto run = [&](Predictor* p) {
      auto in = p->GetInputHandle("x");
      in->Reshape({2, 4});
      in->CopyFromCpu(input.data());
      p->Run();
      auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
      int64_t n = 0;
      const float* d = out->data<float>(&n);
      return std::vector<float>(d, d + n);
    };
    for (bool generic : {false, true}) {
      SCOPED_TRACE(generic ? "generic kernels on" : "generic kernels off");
      Config config(prefix + ".pdmodel", prefix + ".pdiparams");
      config.SetCpuThreads(2);
      config.EnableGenericKernels(generic);
      auto main = CreatePredictor(config);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(run(main.get()), expected);
      std::vector<std::unique_ptr<Predictor>> clones;
      for (int i = 0; i < 3; ++i) clones.push_back(main->Clone());
      std::vector<std::vector<std::vector<float>>> results(clones.size());
      std::vector<std::thread> threads;
      for (size_t i = 0; i < clones.size(); ++i) {
        threads.emplace_back([&, i] {
          for (int k = 0; k < 5; ++k) {
            results[i].push_back(run(clones[i].get()));
          }
        });
      }
      for (auto& t : threads) t.join();
      for (auto& runs : results) {
        for (auto& r : runs) EXPECT_EQ(r, expected);
      }
      EXPECT_EQ(run(main.get()), expected);
    }
  }
}

// A loop body that writes a weight the loop op does not list as an output
// (W = concat(W, W) while c): the ops reading W after the loop must infer
// its shape anew on every run, though the inputs' shapes repeat. Before,
// a replayed plan kept the first run's [1, 4] and the add wrote 8 floats
// into a region of 4 (a review reproduced it on 2026-12-06).
TEST(Predictor, ALoopThatWritesAWeightReinfersItsReadersOnEveryRun) {
  testing::ScratchDir dir("loop_writes_weight");
  const std::string prefix = dir.path() + "/model";
  {
    using framework::DataType;
    framework::ProgramBuilder b;
    auto c = b.AddInput("c", DataType::kBool, {1});
    auto x = b.AddInput("x", DataType::kFloat32, {1, 4});
    framework::Tensor w;
    w.Resize({1, 4});
    float* values = w.mutable_data<float>(platform::CPUPlace{});
    for (int i = 0; i < 4; ++i) values[i] = static_cast<float>(i + 1);
    b.AddParameter("W", w);
    const int body = b.AddBlock(0);
    b.AddVar("t", DataType::kFloat32, {}, body);
    b.AddOp("concat", {{"X", {"W", "W"}}}, {{"Out", {"t"}}}, {{"axis", 0}},
            body);
    b.AddOp("assign", {{"X", {"t"}}}, {{"Out", {"W"}}}, {}, body);
    b.AddOp("fill_constant", {}, {{"Out", {c}}},
            {{"dtype", static_cast<int32_t>(DataType::kBool)},
             {"shape", std::vector<int64_t>{1}},
             {"value", 0.0f}},
            body);
    b.AddOp("while", {{"X", {"W"}}, {"Condition", {c}}}, {},
            {{"sub_block", framework::BlockRef{body}}, {"is_test", true}});
    auto y = b.AddVar("y");
    b.AddOp("elementwise_add", {{"X", {"W"}}, {"Y", {x}}}, {{"Out", {y}}},
            {{"axis", -1}});
    b.AddOutput(y);
    b.Save(prefix);
  }
  auto p = CreatePredictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"));
  const std::vector<float> x = {10, 20, 30, 40};
  for (bool loop : {false, true, false, true, true, false}) {
    SCOPED_TRACE(loop ? "one iteration" : "none");
    auto c = p->GetInputHandle("c");
    c->Reshape({1});
    c->CopyFromCpu(&loop);
    auto in = p->GetInputHandle("x");
    in->Reshape({1, 4});
    in->CopyFromCpu(x.data());
    p->Run();
    auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
    const std::vector<float> row = {11, 22, 33, 44};
    std::vector<float> want = row;
    if (loop) want.insert(want.end(), row.begin(), row.end());
    EXPECT_EQ(out->shape(), (std::vector<int64_t>{loop ? 2 : 1, 4}));
    int64_t n = 0;
    const float* d = out->data<float>(&n);
    EXPECT_EQ(std::vector<float>(d, d + n), want);
  }
}

// A program that writes a view of its input (x reshaped, the view scaled
// in place) writes the input: each run works on a copy, so the caller's
// buffer is never written (a read-only one faulted) and a staged input
// stays as given (runs drifted: 4, 8, 16). Outputs that are an input, or
// a view of one, get buffers of their own: after Run() the caller may
// change or free its buffer, or stage the next input.
TEST(Predictor, ViewsOfAnInputNeitherWriteItNorOutliveIt) {
  testing::ScratchDir dir("input_views");
  auto save = [&](const std::string& name, bool scaled) {
    using framework::DataType;
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 4});
    b.AddVar("y");
    b.AddVar("y_shape");
    b.AddOp("reshape2", {{"X", {x}}}, {{"Out", {"y"}}, {"XShape", {"y_shape"}}},
            {{"shape", std::vector<int>{-1}}});
    if (scaled) {
      b.AddOp("scale", {{"X", {"y"}}}, {{"Out", {"y"}}}, {{"scale", 2.0f}});
    }
    b.AddOutput("y");
    b.Save(dir.path() + "/" + name);
    return Config(dir.path() + "/" + name + ".pdmodel",
                  dir.path() + "/" + name + ".pdiparams");
  };
  const std::vector<float> given = {-1, 2, -3, 4, 5, -6, 7, -8};
  auto read = [](Predictor* p) {
    auto out = p->GetOutputHandle("y");
    int64_t n = 0;
    const float* d = out->data<float>(&n);
    return std::vector<float>(d, d + n);
  };
  {
    SCOPED_TRACE("scaled in place");
    auto p = CreatePredictor(save("scaled", true));
    std::vector<float> doubled;
    for (float v : given) doubled.push_back(2 * v);
    auto in = p->GetInputHandle("x");
    for (int run = 0; run < 3; ++run) {
      in->Reshape({2, 4});
      in->CopyFromCpu(given.data());
      p->Run();
      EXPECT_EQ(read(p.get()), doubled) << "run " << run + 1;
    }
    // Staged once, run three times: the same answer each time.
    for (int run = 0; run < 3; ++run) {
      p->Run();
      EXPECT_EQ(read(p.get()), doubled) << "rerun " << run + 1;
    }
    std::vector<float> buffer = given;
    in->ShareExternalData(buffer.data(), {2, 4});
    p->Run();
    EXPECT_EQ(buffer, given) << "the caller's buffer was written";
    EXPECT_EQ(read(p.get()), doubled);
  }
  {
    SCOPED_TRACE("fetched as a view");
    auto p = CreatePredictor(save("viewed", false));
    auto in = p->GetInputHandle("x");
    std::vector<float> buffer = given;
    in->ShareExternalData(buffer.data(), {2, 4});
    p->Run();
    std::fill(buffer.begin(), buffer.end(), 99.f);
    EXPECT_EQ(read(p.get()), given) << "the output read the caller's buffer";
    in->Reshape({2, 4});
    in->CopyFromCpu(given.data());
    p->Run();
    float* next = in->mutable_data<float>();
    std::fill(next, next + 8, -5.f);
    EXPECT_EQ(read(p.get()), given) << "the output read the staged input";
  }
}

// Before any Run(), last_run_stats() describes no run: not the warm-up
// at load (it showed its plan and arena, which the warm-up forgets).
TEST(Predictor, StatsBeforeAnyRunAreEmpty) {
  auto p = CreatePredictor(Config(testing::DemoModelDir()));
  const RunStats stats = p->last_run_stats();
  EXPECT_EQ(stats.plans_cached, 0u);
  EXPECT_EQ(stats.arena_bytes, 0u);
  EXPECT_EQ(stats.ops_inferred, 0);
  RunDemo(p.get(), DemoInput());
  EXPECT_EQ(p->last_run_stats().plans_cached, 1u);
}

TEST(Predictor, SavedRealModelRoundTripsWithIdenticalOutputs) {
  std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  auto input = framework::ReadNpy(dir + "/ref/input_x.npy");
  auto run = [&](const Config& config) {
    auto p = CreatePredictor(config);
    auto in = p->GetInputHandle("x");
    in->Reshape(input.dims());
    in->CopyFromCpu(input.data<float>());
    p->Run();
    auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
    int64_t n = 0;
    const float* d = out->data<float>(&n);
    return std::vector<float>(d, d + n);
  };
  auto original = run(Config(dir));
  // load, save, load: the saved files give bit-identical outputs.
  auto model = framework::LoadModel(dir);
  testing::ScratchDir scratch("roundtrip");
  const std::string prefix = scratch.path() + "/model";
  framework::SaveModel(*model.program, *model.weights, prefix);
  auto again = run(Config(prefix + ".pdmodel", prefix + ".pdiparams"));
  EXPECT_EQ(original, again);
  // and the params file is byte-identical to PaddlePaddle's.
  EXPECT_EQ(Slurp(prefix + ".pdiparams"), Slurp(dir + "/inference.pdiparams"));
}

// FLOAT16 and BFLOAT16 in and out through the public handles: copied as
// their bit patterns, and read back with their declared types.
TEST(Predictor, CopiesHalfPrecisionTensorsInAndOut) {
  testing::ScratchDir dir("half");
  const std::string prefix = dir.path() + "/model";
  testing::SaveHalfPrecisionModel(prefix);
  auto p = CreatePredictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"));
  std::map<std::string, DataType> declared;
  for (const auto& info : p->GetInputInfo()) declared[info.name] = info.type;
  for (const auto& info : p->GetOutputInfo()) declared[info.name] = info.type;
  EXPECT_EQ(declared["x16"], DataType::FLOAT16);
  EXPECT_EQ(declared["xb16"], DataType::BFLOAT16);
  EXPECT_EQ(declared["sum"], DataType::FLOAT32);
  EXPECT_EQ(declared["sum16"], DataType::FLOAT16);
  EXPECT_EQ(declared["sumb16"], DataType::BFLOAT16);

  // Exact in both types, and the largest float16 (65504), whose double
  // overflows float16 to infinity.
  const std::vector<float> a = {1.5f, -2.0f, 0.25f, 65504.0f, 0.0f, -0.5f};
  const std::vector<float> b = {0.5f, 3.0f, -1.0f, 0.0f, -0.0f, 256.0f};
  std::vector<float16> a16;
  std::vector<bfloat16> b16;
  for (float v : a) a16.emplace_back(v);
  for (float v : b) b16.emplace_back(v);
  auto x16 = p->GetInputHandle("x16");
  x16->Reshape({2, 3});
  x16->CopyFromCpu(a16.data());
  auto xb16 = p->GetInputHandle("xb16");
  xb16->Reshape({2, 3});
  xb16->CopyFromCpu(b16.data());
  p->Run();

  auto sum = p->GetOutputHandle("sum");
  auto sum16 = p->GetOutputHandle("sum16");
  auto sumb16 = p->GetOutputHandle("sumb16");
  EXPECT_EQ(sum16->type(), DataType::FLOAT16);
  EXPECT_EQ(sumb16->type(), DataType::BFLOAT16);
  std::vector<float> got(6);
  std::vector<float16> got16(6);
  std::vector<bfloat16> gotb16(6);
  sum->CopyToCpu(got.data());
  sum16->CopyToCpu(got16.data());
  sumb16->CopyToCpu(gotb16.data());
  for (size_t i = 0; i < a.size(); ++i) {
    const float want = 2 * a[i] + b[i];
    EXPECT_EQ(got[i], want) << i;
    EXPECT_EQ(got16[i].bits, float16(want).bits) << i;
    EXPECT_EQ(gotb16[i].bits, bfloat16(want).bits) << i;
  }
  EXPECT_TRUE(std::isinf(static_cast<float>(got16[3])));
  EXPECT_EQ(static_cast<float>(gotb16[3]), 131072.0f);
  // Reading an output as another type is refused.
  float wrong = 0;
  EXPECT_THROW(sum16->CopyToCpu(&wrong), Exception);
}

// After a Run() that threw, an output handle reads no value: not the run
// before's (which it had read as if new, with no error), and, after a
// replay that failed midway, not values partly overwritten. The next good
// run reads its own.
TEST(Predictor, AfterARunThatThrowsOutputsHaveNoValue) {
  testing::ScratchDir dir("failed_run_outputs");
  testing::SaveEmbeddingModel(dir.path() + "/model");
  Config config(dir.path() + "/model.pdmodel", dir.path() + "/model.pdiparams");
  auto p = CreatePredictor(config);
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  for (int run = 0; run < 3; ++run) {  // recorded, then replayed
    SCOPED_TRACE("run " + std::to_string(run));
    auto want = testing::EmbeddingRow(9);
    want.insert(want.end(), want.begin(), want.end());
    EXPECT_EQ(testing::RunEmbedding(p.get(), 2, 9), want);
    EXPECT_TRUE(testing::RunEmbedding(p.get(), 2, 99).empty()) << "ran";
    for (const char* read : {"data", "type"}) {
      try {
        if (read[0] == 'd') {
          out->data<float>();
        } else {
          out->type();
        }
        FAIL() << read << " of an output of the run that failed";
      } catch (const Exception& e) {
        EXPECT_EQ(e.code(), ErrorCode::kPreconditionNotMet) << read;
        EXPECT_NE(std::string(e.what()).find("the last Run() failed"),
                  std::string::npos)
            << e.what();
      }
    }
  }
  EXPECT_EQ(testing::RunEmbedding(p.get(), 1, 3), testing::EmbeddingRow(3));
  // Nor when Run() refuses its inputs before running (a LoD past the rows).
  auto in = p->GetInputHandle("ids");
  in->SetLoD({{0, 5}});
  EXPECT_THROW(p->Run(), Exception);
  try {
    out->data<float>();
    FAIL() << "read an output after a Run() that refused its inputs";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("the last Run() failed"),
              std::string::npos)
        << e.what();
  }
}

// A replay that throws (an id past the embedding's rows) leaves its plan
// and arenas unpinned: they had stayed pinned for good, so that after a
// few such requests the budget held plans it could never evict, and new
// shapes no longer replayed. The budget then holds what it holds after
// the same shapes' runs that all succeed.
TEST(Predictor, AReplayThatThrowsLeavesNothingPinnedInTheBudget) {
  testing::ScratchDir dir("failed_replay_pins");
  testing::SaveEmbeddingModel(dir.path() + "/model");
  auto after = [&dir](int64_t second_id) {
    Config config(dir.path() + "/model.pdmodel",
                  dir.path() + "/model.pdiparams");
    config.SetCacheBudget(size_t{64} << 10);
    config.EnableGenericKernels(false);
    config.EnableMakeAhead(false);
    auto p = CreatePredictor(config);
    for (int64_t rows = 1; rows <= 300; ++rows) {
      EXPECT_FALSE(testing::RunEmbedding(p.get(), rows, 2).empty()) << rows;
      // The second run of the shape replays its plan.
      testing::RunEmbedding(p.get(), rows, second_id);
    }
    int replays = 0;
    for (int run = 0; run < 3; ++run) {
      auto got = testing::RunEmbedding(p.get(), 500, 4);
      EXPECT_EQ(got.size(), size_t{500 * testing::kEmbeddingWidth});
      if (p->last_run_stats().replayed) ++replays;
    }
    EXPECT_EQ(replays, 2) << "second id " << second_id;
    return p->last_run_stats();
  };
  RunStats failed = after(99);
  RunStats succeeded = after(3);
  EXPECT_EQ(failed.plans_cached, succeeded.plans_cached);
  EXPECT_EQ(failed.cache_bytes["plans"], succeeded.cache_bytes["plans"]);
  EXPECT_EQ(failed.cache_bytes["arena"], succeeded.cache_bytes["arena"]);
}

// A resize whose Scale comes from a tensor resamples at each run's ratio:
// a scale of 2.01 gives the same 80x80 output as 2.0, but not the same
// values. The oneDNN kernel had kept its first run's call, matched by the
// dims alone, and replayed it at ratio 1/2.0.
TEST(Predictor, AResizeByAScaleTensorFollowsItsValues) {
  for (const char* op : {"bilinear_interp_v2", "nearest_interp_v2"}) {
    SCOPED_TRACE(op);
    testing::ScratchDir dir("scale_tensor_resize");
    {
      framework::ProgramBuilder b;
      auto x = b.AddInput("x", framework::DataType::kFloat32, {1, 8, 40, 40});
      auto scale = b.AddInput("s", framework::DataType::kFloat32, {1});
      auto y = b.AddVar("y");
      b.AddOp(op, {{"X", {x}}, {"Scale", {scale}}}, {{"Out", {y}}},
              {{"align_corners", false},
               {"align_mode", 0},
               {"interp_method",
                std::string(op[0] == 'b' ? "bilinear" : "nearest")}});
      b.AddOutput(y);
      b.Save(dir.path() + "/model");
    }
    auto predictor = [&dir](bool plain) {
      Config config(dir.path() + "/model.pdmodel",
                    dir.path() + "/model.pdiparams");
      config.EnableGenericKernels(false);
      if (plain) config.SetKernelLibraries({"PLAIN"});
      return CreatePredictor(config);
    };
    auto run = [](Predictor* p, float scale) {
      std::vector<float> x(8 * 40 * 40);
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<float>(static_cast<int>(i * 7919 % 601) - 300) / 100;
      }
      auto in = p->GetInputHandle("x");
      in->Reshape({1, 8, 40, 40});
      in->CopyFromCpu(x.data());
      auto s = p->GetInputHandle("s");
      s->Reshape({1});
      s->CopyFromCpu(&scale);
      p->Run();
      return testing::FirstOutput(p);
    };
    auto p = predictor(false);
    for (float scale : {2.0f, 2.01f, 2.0f, 2.01f}) {
      auto want = run(predictor(true).get(), scale);
      auto got = run(p.get(), scale);
      ASSERT_EQ(got.size(), size_t{8 * 80 * 80}) << scale;
      float worst = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        worst = std::max(worst, std::fabs(got[i] - want[i]));
      }
      EXPECT_LE(worst, 1e-5f) << "scale " << scale;
    }
  }
}

// ShareExternalData on the host runs on the caller's memory, as a copy
// would; null data is refused unless the shape holds no elements (a
// rank-0 shape holds one: it had been taken, for a kernel to read through
// null), and so are negative dims.
TEST(Predictor, ShareExternalDataRunsOnTheCallersMemory) {
  framework::Tensor x =
      framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
  auto p = CreatePredictor(Config(testing::DemoModelDir()));
  const std::vector<float> want = RunDemo(p.get(), x);
  auto in = p->GetInputHandle("x");
  std::vector<float> mine(x.data<float>(), x.data<float>() + x.numel());
  std::vector<int64_t> shape(x.dims().begin(), x.dims().end());
  in->ShareExternalData(mine.data(), shape);
  p->Run();
  EXPECT_EQ(testing::FirstOutput(p.get()), want);
  auto refused = [&](const float* data, std::vector<int64_t> dims) {
    try {
      in->ShareExternalData(data, dims);
    } catch (const Exception& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused(nullptr, {}).find("data is null"), std::string::npos);
  EXPECT_NE(refused(nullptr, {2, 3}).find("data is null"), std::string::npos);
  EXPECT_NE(refused(mine.data(), {2, -3}).find("dims must be >= 0"),
            std::string::npos);
  EXPECT_NE(refused(mine.data(), {int64_t{1} << 62})
                .find("more bytes than memory holds"),
            std::string::npos);
  EXPECT_NE(refused(mine.data(), {int64_t{1} << 40, int64_t{1} << 40})
                .find("more bytes than memory holds"),
            std::string::npos);
  EXPECT_EQ(refused(nullptr, {0, 3, 32, 32}), "");
  EXPECT_EQ(refused(nullptr, {int64_t{1} << 62, int64_t{1} << 62, 0}), "");
}

// An input the program writes (a loop's counter) is written on a copy:
// memory given by ShareExternalData keeps its values (it may be
// read-only: a const object's), and so does a copied input, so that runs
// of the same inputs give the same outputs.
TEST(Predictor, AnInputTheProgramWritesIsLeftAsGiven) {
  const std::string program = testing::CountingLoopProgram();
  Config config;
  config.SetModelBuffer(program.data(), program.size(), nullptr, 0);
  auto p = CreatePredictor(config);
  static const int64_t kZero = 0;  // read-only memory
  const std::vector<int64_t> n = {5};
  p->GetInputHandle("i")->ShareExternalData(&kZero, {1});
  p->GetInputHandle("n")->ShareExternalData(n.data(), {1});
  for (int run = 0; run < 2; ++run) {
    p->Run();
    EXPECT_EQ(p->GetOutputHandle("i")->data<int64_t>()[0], 5) << "run " << run;
    EXPECT_EQ(kZero, 0);
    EXPECT_EQ(p->GetInputHandle("i")->data<int64_t>()[0], 0);
  }
  auto i = p->GetInputHandle("i");
  i->Reshape({1});
  i->CopyFromCpu(&kZero);
  for (int run = 0; run < 2; ++run) {
    p->Run();
    EXPECT_EQ(p->GetOutputHandle("i")->data<int64_t>()[0], 5) << "run " << run;
    EXPECT_EQ(i->data<int64_t>()[0], 0);
  }
}

}  // namespace
}  // namespace paddle_lite
