// The server core without HTTP: loading a repository, metadata, bad
// inputs, the queue limit, timeouts, and dynamic batching giving the
// results of unbatched runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "framework/npy.h"
#include "framework/program_builder.h"
#include "serve/classification.h"
#include "serve/server.h"
#include "unittests/test_utils/half_model.h"
#include "unittests/test_utils/loop_model.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/scratch_dir.h"

namespace pdlite {
namespace serve {
namespace {

namespace fs = std::filesystem;
using paddle_lite::DataType;
using paddle_lite::testing::DemoModelDir;

const std::string kModels = std::string(PDLITE_SHARED_DIR) + "/models";

// A model repository of symlinks, removed with the scratch folder.
class Repository {
 public:
  Repository() : dir_("serve_repo") {}
  void Add(const std::string& name,
           const std::string& model_dir,
           const std::string& config_json = "",
           const std::string& version = "1") {
    fs::create_directories(dir_.path() + "/" + name);
    fs::create_directory_symlink(model_dir,
                                 dir_.path() + "/" + name + "/" + version);
    if (!config_json.empty()) {
      std::ofstream(dir_.path() + "/" + name + "/config.json") << config_json;
    }
  }
  const std::string& path() const { return dir_.path(); }

 private:
  paddle_lite::testing::ScratchDir dir_;
};

// A repository serving, as `name` version 1 with `config_json`, a model
// that `build` writes (its inputs, ops and outputs).
class BuiltModel {
 public:
  BuiltModel(
      const std::string& name,
      const std::string& config_json,
      const std::function<void(paddle_lite::framework::ProgramBuilder&)>& build)
      : dir_(name + "_model") {
    paddle_lite::framework::ProgramBuilder b;
    build(b);
    fs::create_directory(dir_.path() + "/1");
    b.Save(dir_.path() + "/1/model");
    repo_.Add(name, dir_.path() + "/1", config_json);
  }
  const std::string& repository() const { return repo_.path(); }

 private:
  paddle_lite::testing::ScratchDir dir_;
  Repository repo_;
};

// Read once: tests make requests on many threads at once, and libstdc++'s
// std::regex (which reading a .npy header uses) races on a locale cache
// the first time threads use it together (ThreadSanitizer reports it).
const std::vector<float>& DemoInput() {
  static const std::vector<float> input = [] {
    auto t = paddle_lite::framework::ReadNpy(DemoModelDir() + "/input_x.npy");
    return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
  }();
  return input;
}

TensorData Floats(const std::string& name,
                  std::vector<int64_t> shape,
                  const std::vector<float>& values) {
  TensorData t;
  t.name = name;
  t.type = DataType::FLOAT32;
  t.shape = std::move(shape);
  t.bytes.assign(reinterpret_cast<const char*>(values.data()),
                 values.size() * sizeof(float));
  return t;
}

std::vector<float> AsFloats(const TensorData& t) {
  std::vector<float> out(t.bytes.size() / sizeof(float));
  std::memcpy(out.data(), t.bytes.data(), t.bytes.size());
  return out;
}

// Rows [begin, end) of the demo input ([2,3,32,32]), repeated to `rows`.
std::vector<float> DemoRows(int rows, int seed) {
  const std::vector<float>& all = DemoInput();
  const size_t row = all.size() / 2;
  std::vector<float> out;
  for (int r = 0; r < rows; ++r) {
    size_t from = ((r + seed) % 2) * row;
    for (size_t i = 0; i < row; ++i) {
      // Each row different, so a mixed-up split would show.
      out.push_back(all[from + i] * (1.0f + 0.01f * (r + seed)));
    }
  }
  return out;
}

// The longest a test waits for the server to reach a state, in ms; the
// wait ends as soon as it does.
constexpr int kWaitMs = 30000;

InferRequest DemoRequest(int rows,
                         int seed,
                         const std::string& model = "demo") {
  InferRequest r;
  r.model = model;
  r.inputs.push_back(Floats("x", {rows, 3, 32, 32}, DemoRows(rows, seed)));
  return r;
}

// Options of a server whose clients may load and unload models.
ServerOptions ExplicitModelControl() {
  ServerOptions options;
  options.model_control = true;
  return options;
}

// Model runs of `model` so far, from the batch size histogram.
int Runs(InferenceServer* server, const std::string& model) {
  const std::string metrics = server->metrics().Render();
  const std::string key =
      "pdlite_batch_size_count{model=\"" + model + "\",version=\"1\"} ";
  auto at = metrics.find(key);
  if (at == std::string::npos) return -1;
  return std::stoi(metrics.substr(at + key.size()));
}

TEST(ServerCore, LoadsRepositoryAndReportsMetadata) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  repo.Add("demo2", DemoModelDir(), "", "3");
  fs::create_directory_symlink(DemoModelDir(), repo.path() + "/demo2/7");
  InferenceServer server(repo.path());
  EXPECT_TRUE(server.Ready());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  ASSERT_TRUE(m->ready()) << m->error();
  ASSERT_EQ(m->inputs().size(), 1u);
  EXPECT_EQ(m->inputs()[0].name, "x");
  EXPECT_EQ(m->inputs()[0].type, DataType::FLOAT32);
  ASSERT_EQ(m->inputs()[0].shape.size(), 4u);
  EXPECT_EQ(m->inputs()[0].shape[0], -1);
  ASSERT_EQ(m->outputs().size(), 1u);
  EXPECT_EQ(m->outputs()[0].name, "softmax.tmp_0");
  // The highest version is the default.
  ASSERT_TRUE(server.Find("demo2", "", &m).ok());
  EXPECT_EQ(m->version(), "7");
  EXPECT_EQ(server.Versions("demo2"), (std::vector<std::string>{"3", "7"}));
  EXPECT_EQ(server.Find("nope", "", &m).code, StatusCode::kNotFound);
  EXPECT_EQ(server.Find("demo2", "4", &m).code, StatusCode::kNotFound);
  EXPECT_EQ(server.Find("demo2", "x", &m).code, StatusCode::kNotFound);
}

// A key repeated in a config counts as its first, as Triton's reader
// (rapidjson) and infer requests take it, whatever it nests in.
TEST(ServerCore, AConfigsRepeatedKeyCountsAsItsFirst) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 4, "batch_delay_us": 0,)"
           R"( "max_batch_size": 0, "batch_delay_us": 5})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  ASSERT_TRUE(m->ready()) << m->error();
  EXPECT_EQ(m->config().max_batch_size, 4);
  EXPECT_EQ(m->config().batch_delay_us, 0);

  nlohmann::json parsed;
  std::string error;
  ASSERT_TRUE(
      ParseJson(R"({"a": 1, "b": {"x": 1, "x": 2}, "a": {"y": {"z": 1}},)"
                R"( "c": [{"k": 1, "k": 2}, {"k": 3}], "b": 3, "d": {"b": 4}})",
                &parsed, &error))
      << error;
  EXPECT_EQ(parsed.dump(),
            R"({"a":1,"b":{"x":1},"c":[{"k":1},{"k":3}],"d":{"b":4}})");
  EXPECT_FALSE(ParseJson(R"({"a": 1,})", &parsed, &error));
  EXPECT_NE(error.find("parse error"), std::string::npos) << error;
}

TEST(ServerCore, InferMatchesTheModelsExpectedOutput) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  InferRequest r;
  r.model = "demo";
  r.inputs.push_back(Floats("x", {2, 3, 32, 32}, DemoInput()));
  InferResponse response = server.Infer(r);
  ASSERT_TRUE(response.status.ok()) << response.status.message;
  ASSERT_EQ(response.outputs.size(), 1u);
  auto expected = paddle_lite::framework::ReadNpy(
      DemoModelDir() + "/expected_softmax.tmp_0.npy");
  auto got = AsFloats(response.outputs[0]);
  ASSERT_EQ(got.size(), static_cast<size_t>(expected.numel()));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected.data<float>()[i],
                1e-4 + 1e-3 * std::abs(expected.data<float>()[i]));
  }
  EXPECT_EQ(response.outputs[0].shape, (std::vector<int64_t>{2, 10}));
}

TEST(ServerCore, BadInputsAreInvalidArgumentsNamingWhatWasExpected) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  auto check = [&](InferRequest r, StatusCode code, const std::string& needle) {
    InferResponse response = server.Infer(std::move(r));
    EXPECT_EQ(response.status.code, code) << response.status.message;
    EXPECT_NE(response.status.message.find(needle), std::string::npos)
        << "'" << needle << "' not in: " << response.status.message;
  };
  InferRequest r = DemoRequest(1, 0);
  r.inputs[0].type = DataType::INT32;
  check(r, StatusCode::kInvalidArgument, "datatype INT32, expected FP32");
  r = DemoRequest(1, 0);
  r.inputs[0].shape = {3, 32, 32};
  check(r, StatusCode::kInvalidArgument, "expected rank 4");
  r = DemoRequest(1, 0);
  r.inputs[0].shape = {2, 3, 32, 32};  // twice the elements given
  check(r, StatusCode::kInvalidArgument, "needs 6144 elements, got 3072");
  r = DemoRequest(1, 0);
  r.inputs[0].shape = {int64_t{1} << 40, 1 << 20, 32, 32};
  check(r, StatusCode::kInvalidArgument,
        "non-zero dims multiply past 2^64 (got 3072 elements)");
  r = DemoRequest(1, 0);
  r.inputs[0].name = "y";
  check(r, StatusCode::kInvalidArgument,
        "has no input 'y'; its inputs are 'x'");
  r = DemoRequest(1, 0);
  r.inputs.clear();
  check(r, StatusCode::kInvalidArgument, "needs input 'x' (FP32 [-1,3,32,32])");
  r = DemoRequest(1, 0);
  r.inputs.push_back(r.inputs[0]);
  check(r, StatusCode::kInvalidArgument, "given twice");
  r = DemoRequest(1, 0);
  r.outputs = {"nope"};
  check(r, StatusCode::kInvalidArgument, "has no output 'nope'");
  // Each name would be a copy of the output in the answer.
  r = DemoRequest(1, 0);
  r.outputs = {"softmax.tmp_0", "softmax.tmp_0"};
  check(r, StatusCode::kInvalidArgument,
        "model 'demo' version 1: output 'softmax.tmp_0' asked for twice");
  // Shapes the program cannot run are the runtime's InvalidArgument.
  r = DemoRequest(1, 0);
  r.inputs[0] =
      Floats("x", {1, 4, 32, 32}, std::vector<float>(4 * 32 * 32, 1.f));
  check(r, StatusCode::kInvalidArgument, "model 'demo' version 1");
  r = DemoRequest(1, 0);
  r.model = "nope";
  check(r, StatusCode::kNotFound, "unknown model 'nope'");
  r = DemoRequest(1, 0);
  r.version = "2";
  check(r, StatusCode::kNotFound, "has no version '2'");
  // And the model still answers.
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

TEST(ServerCore, BadConfigOrModelLeavesOnlyThatModelNotReady) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  repo.Add("typo", DemoModelDir(), R"({"instance": 2})");
  repo.Add("bad_value", DemoModelDir(), R"({"queue_limit": 0})");
  repo.Add("not_json", DemoModelDir(), R"({"instances": )");
  // Checked before it is parsed: a load's config comes from a client.
  repo.Add(
      "nested", DemoModelDir(),
      R"({"labels": )" + std::string(40, '[') + std::string(40, ']') + "}");
  fs::create_directories(repo.path() + "/broken/1");
  std::ofstream(repo.path() + "/broken/1/model.pdmodel") << "not a program";
  InferenceServer server(repo.path());
  EXPECT_FALSE(server.Ready());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  EXPECT_TRUE(m->ready());
  ASSERT_TRUE(server.Find("typo", "", &m).ok());
  EXPECT_FALSE(m->ready());
  EXPECT_NE(m->error().find("unknown key \"instance\""), std::string::npos)
      << m->error();
  ASSERT_TRUE(server.Find("bad_value", "", &m).ok());
  EXPECT_NE(m->error().find("\"queue_limit\" must be an integer in [1,"),
            std::string::npos)
      << m->error();
  ASSERT_TRUE(server.Find("not_json", "", &m).ok());
  EXPECT_NE(m->error().find("not valid JSON"), std::string::npos) << m->error();
  ASSERT_TRUE(server.Find("nested", "", &m).ok());
  EXPECT_NE(m->error().find("nests deeper than 32"), std::string::npos)
      << m->error();
  ASSERT_TRUE(server.Find("broken", "", &m).ok());
  EXPECT_FALSE(m->ready());
  EXPECT_FALSE(m->error().empty());
  InferResponse r = server.Infer(DemoRequest(1, 0, "broken"));
  EXPECT_EQ(r.status.code, StatusCode::kUnavailable);
  EXPECT_NE(r.status.message.find("is not ready"), std::string::npos);
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

// A config.json that is a link to nothing, or too large, and two folders
// of one version number: the model is not ready, saying why, rather than
// serving without its config or from whichever folder comes first.
TEST(ServerCore, AmbiguousModelFoldersAreNotReady) {
  Repository repo;
  repo.Add("dangling", DemoModelDir());
  fs::create_symlink(repo.path() + "/nowhere.json",
                     repo.path() + "/dangling/config.json");
  repo.Add("huge", DemoModelDir(),
           "{\"instances\": 1" + std::string(2 << 20, ' ') + "}");
  repo.Add("twice", DemoModelDir());
  fs::create_directory_symlink(DemoModelDir(), repo.path() + "/twice/01");
  InferenceServer server(repo.path());
  for (auto [model, why] : std::vector<std::pair<std::string, std::string>>{
           {"dangling", "config.json: not a regular file (nor a link to one)"},
           {"huge", "config.json: over 1048576 bytes"},
           {"twice", "version folders '01' and '1' are both version 1"}}) {
    std::shared_ptr<const ModelVersion> m;
    ASSERT_TRUE(server.Find(model, "", &m).ok()) << model;
    EXPECT_FALSE(m->ready()) << model;
    EXPECT_NE(m->error().find(why), std::string::npos) << m->error();
  }
}

TensorData Int64(const std::string& name, int64_t value) {
  TensorData t;
  t.name = name;
  t.type = DataType::INT64;
  t.shape = {1};
  t.bytes.assign(reinterpret_cast<const char*>(&value), sizeof(value));
  return t;
}

// config.json bounds what one run of a hostile or broken model may do;
// a request past a limit is refused (400) and the next one served.
TEST(ServerCore, ConfigLimitsWhatOneRunOfAModelMayDo) {
  paddle_lite::testing::ScratchDir loop_dir("loop_model");
  paddle_lite::testing::SaveCountingLoopModel(loop_dir.path() + "/model");
  Repository repo;
  repo.Add("loop", loop_dir.path(), R"({"max_loop_iterations": 10})");
  repo.Add("demo", DemoModelDir(), R"({"max_tensor_mb": 1})");
  repo.Add("negative", DemoModelDir(), R"({"max_run_mb": -1})");
  InferenceServer server(repo.path());
  auto count_to = [&](int64_t n) {
    InferRequest r;
    r.model = "loop";
    r.inputs.push_back(Int64("i", 0));
    r.inputs.push_back(Int64("n", n));
    return server.Infer(std::move(r));
  };
  InferResponse ten = count_to(10);
  ASSERT_TRUE(ten.status.ok()) << ten.status.message;
  int64_t counted = 0;
  std::memcpy(&counted, ten.outputs.at(0).bytes.data(), sizeof(counted));
  EXPECT_EQ(counted, 10);
  InferResponse eleven = count_to(11);
  EXPECT_EQ(eleven.status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(eleven.status.message.find("10 loop iterations"), std::string::npos)
      << eleven.status.message;
  EXPECT_TRUE(count_to(3).status.ok());
  // 16x3x128x128 floats (3 MB) fit no tensor of 1 MB.
  InferRequest big;
  big.model = "demo";
  big.inputs.push_back(Floats("x", {16, 3, 128, 128},
                              std::vector<float>(16 * 3 * 128 * 128, 0.5f)));
  InferResponse refused = server.Infer(std::move(big));
  EXPECT_EQ(refused.status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status.message.find("limit for one tensor"),
            std::string::npos)
      << refused.status.message;
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("negative", "", &m).ok());
  EXPECT_NE(m->error().find("\"max_run_mb\" must be an integer in [0,"),
            std::string::npos)
      << m->error();
}

// config.json's version_policy (Triton's form) chooses which version
// folders serve; every one by default.
TEST(ServerCore, TheVersionPolicyChoosesWhichVersionsServe) {
  Repository repo;
  const std::vector<std::pair<std::string, std::string>> models = {
      {"every", ""},
      {"all", R"({"version_policy": {"all": {}}})"},
      {"latest", R"({"version_policy": {"latest": {"num_versions": 2}}})"},
      {"more", R"({"version_policy": {"latest": {"num_versions": 9}}})"},
      {"specific",
       R"({"version_policy": {"specific": {"versions": [10, 1, 1]}}})"},
      {"missing", R"({"version_policy": {"specific": {"versions": [2, 4]}}})"},
      {"bad", R"({"version_policy": {"latest": 2}})"},
      {"zero", R"({"version_policy": {"latest": {"num_versions": 0}}})"},
  };
  for (const auto& [name, config] : models) {
    // Versions 1, 2 and 10: numbered, not ordered as text.
    for (const char* v : {"1", "2", "10"})
      repo.Add(name, DemoModelDir(), "", v);
    if (!config.empty()) {
      std::ofstream(repo.path() + "/" + name + "/config.json") << config;
    }
  }
  InferenceServer server(repo.path());
  using Versions = std::vector<std::string>;
  EXPECT_EQ(server.Versions("every"), (Versions{"1", "2", "10"}));
  EXPECT_EQ(server.Versions("all"), (Versions{"1", "2", "10"}));
  EXPECT_EQ(server.Versions("latest"), (Versions{"2", "10"}));
  EXPECT_EQ(server.Versions("more"), (Versions{"1", "2", "10"}));
  EXPECT_EQ(server.Versions("specific"), (Versions{"1", "10"}));
  InferResponse latest = server.Infer(DemoRequest(1, 0, "latest"));
  EXPECT_TRUE(latest.status.ok());
  EXPECT_EQ(latest.version, "10");
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("missing", "2", &m).ok());
  EXPECT_TRUE(m->ready());
  ASSERT_TRUE(server.Find("missing", "4", &m).ok());
  EXPECT_FALSE(m->ready());
  EXPECT_NE(m->error().find("names version 4, but there is no folder"),
            std::string::npos)
      << m->error();
  // Without a version, the highest that is ready serves.
  InferResponse unversioned = server.Infer(DemoRequest(1, 0, "missing"));
  EXPECT_TRUE(unversioned.status.ok()) << unversioned.status.message;
  EXPECT_EQ(unversioned.version, "2");
  ASSERT_TRUE(server.Find("missing", "", &m).ok());
  EXPECT_EQ(m->version(), "2");
  for (const char* name : {"bad", "zero"}) {
    ASSERT_TRUE(server.Find(name, "", &m).ok()) << name;
    EXPECT_FALSE(m->ready());
    EXPECT_NE(m->error().find("\"version_policy\""), std::string::npos)
        << m->error();
  }
}

TEST(ServerCore, BatchingGivesTheResultsOfUnbatchedRuns) {
  Repository repo;
  repo.Add("plain", DemoModelDir());
  // A long delay so that every request below joins one batch.
  repo.Add("batched", DemoModelDir(),
           R"({"max_batch_size": 16, "batch_delay_us": 300000})");
  InferenceServer server(repo.path());
  const std::vector<int> rows = {1, 3, 2, 1, 4, 1};
  std::vector<InferResponse> alone;
  for (size_t i = 0; i < rows.size(); ++i) {
    alone.push_back(
        server.Infer(DemoRequest(rows[i], static_cast<int>(i), "plain")));
    ASSERT_TRUE(alone.back().status.ok()) << alone.back().status.message;
  }
  std::vector<std::future<InferResponse>> futures;
  for (size_t i = 0; i < rows.size(); ++i) {
    futures.push_back(std::async(std::launch::async, [&, i] {
      return server.Infer(DemoRequest(rows[i], static_cast<int>(i), "batched"));
    }));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    InferResponse b = futures[i].get();
    ASSERT_TRUE(b.status.ok()) << b.status.message;
    ASSERT_EQ(b.outputs.size(), 1u);
    EXPECT_EQ(b.outputs[0].shape, alone[i].outputs[0].shape);
    auto got = AsFloats(b.outputs[0]);
    auto want = AsFloats(alone[i].outputs[0]);
    ASSERT_EQ(got.size(), want.size());
    float worst = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      worst = std::max(worst, std::abs(got[k] - want[k]));
    }
    EXPECT_EQ(worst, 0.0f) << "request " << i;
  }
  // The runs were batched: fewer runs than requests.
  EXPECT_LT(Runs(&server, "batched"), static_cast<int>(rows.size()));
}

// The classification extension end to end in the core: labels read from
// the file config.json names, rows ranked alone when the model batches,
// the whole output otherwise, and bad labels leaving the model not ready.
TEST(ServerCore, ClassificationRanksTheModelsOutputWithItsLabels) {
  Repository repo;
  repo.Add("plain", DemoModelDir(), R"({"labels": {"softmax.tmp_0": "l/a"}})");
  repo.Add("batched", DemoModelDir(),
           R"({"max_batch_size": 4, "labels": {"softmax.tmp_0": "l/a"}})");
  for (const char* name : {"plain", "batched"}) {
    fs::create_directories(repo.path() + "/" + name + "/l");
    std::ofstream(repo.path() + "/" + name + "/l/a")
        << "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\n";
  }
  repo.Add("no_file", DemoModelDir(),
           R"({"labels": {"softmax.tmp_0": "missing.txt"}})");
  repo.Add("no_output", DemoModelDir(), R"({"labels": {"nope": "l.txt"}})");
  std::ofstream(repo.path() + "/no_output/l.txt") << "a\n";
  repo.Add("outside", DemoModelDir(),
           R"({"labels": {"softmax.tmp_0": "../plain/l/a"}})");
  InferenceServer server(repo.path());
  auto expected = paddle_lite::framework::ReadNpy(
      DemoModelDir() + "/expected_softmax.tmp_0.npy");
  const float* y = expected.data<float>();
  // The reference's top classes: of each row's 10, or of all 20.
  auto top = [&](int from, int n, int k) {
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return y[from + a] > y[from + b]; });
    order.resize(k);
    return order;
  };
  auto index_and_label = [](std::string_view s) {
    return std::string(s.substr(s.find(':') + 1));
  };
  const char* kLabels[] = {"zero", "one",  "two", "three",
                           "four", "five", "six", "seven"};
  auto text = [&](int index) {
    return std::to_string(index) +
           (index < 8 ? std::string(":") + kLabels[index] : std::string());
  };
  for (const char* name : {"plain", "batched"}) {
    const bool batched = std::string(name) == "batched";
    InferRequest r;
    r.model = name;
    r.inputs.push_back(Floats("x", {2, 3, 32, 32}, DemoInput()));
    r.classification["softmax.tmp_0"] = 3;
    InferResponse response = server.Infer(r);
    ASSERT_TRUE(response.status.ok())
        << name << ": " << response.status.message;
    ASSERT_EQ(response.outputs.size(), 1u);
    const TensorData& out = response.outputs[0];
    EXPECT_TRUE(out.is_bytes);
    std::vector<std::string_view> got;
    ASSERT_TRUE(SplitBytesElements(out.bytes, &got));
    std::vector<std::string> want;
    if (batched) {
      EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 3}));
      for (int row = 0; row < 2; ++row) {
        for (int i : top(row * 10, 10, 3)) want.push_back(text(i));
      }
    } else {
      EXPECT_EQ(out.shape, (std::vector<int64_t>{3}));
      for (int i : top(0, 20, 3)) want.push_back(text(i));
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(index_and_label(got[i]), want[i]) << name << " " << i;
    }
    // The value is the model's score, as std::to_string writes it.
    const int first = batched ? top(0, 10, 1)[0] : top(0, 20, 1)[0];
    EXPECT_NEAR(std::stof(std::string(got[0].substr(0, got[0].find(':')))),
                y[first], 1e-5);
    std::shared_ptr<const ModelVersion> m;
    ASSERT_TRUE(server.Find(name, "", &m).ok());
    EXPECT_EQ(m->Served().outputs[0].label_filename, "l/a");
  }
  // An unknown output to classify is refused, naming the outputs.
  InferRequest r = DemoRequest(1, 0, "plain");
  r.classification["nope"] = 1;
  InferResponse refused = server.Infer(r);
  EXPECT_EQ(refused.status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status.message.find(
                "has no output 'nope' to classify; its outputs are "
                "'softmax.tmp_0'"),
            std::string::npos)
      << refused.status.message;
  const std::pair<std::string, std::string> not_ready[] = {
      {"no_file", "labels of output 'softmax.tmp_0': " + repo.path() +
                      "/no_file/missing.txt"},
      {"no_output",
       "\"labels\" names output 'nope' (l.txt), which the model does not "
       "have"},
      {"outside", "relative to the model's folder, without '.' or '..'"}};
  for (const auto& [name, why] : not_ready) {
    std::shared_ptr<const ModelVersion> m;
    ASSERT_TRUE(server.Find(name, "", &m).ok());
    EXPECT_FALSE(m->ready()) << name;
    EXPECT_NE(m->error().find(why), std::string::npos) << m->error();
  }
}

// FP16 and BF16 inputs and outputs, alone and batched, on the model of
// unittests/test_utils/half_model.h: sum = 2 * x16 + xb16.
TEST(ServerCore, HalfPrecisionTensorsAloneAndBatched) {
  paddle_lite::testing::ScratchDir model_dir("half_model");
  paddle_lite::testing::SaveHalfPrecisionModel(model_dir.path() + "/model");
  Repository repo;
  repo.Add("half", model_dir.path());
  repo.Add("half_batched", model_dir.path(),
           R"({"max_batch_size": 8, "batch_delay_us": 300000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> model;
  ASSERT_TRUE(server.Find("half", "", &model).ok());
  ASSERT_TRUE(model->ready()) << model->error();
  ASSERT_EQ(model->inputs().size(), 2u);
  EXPECT_STREQ(ProtocolTypeName(model->inputs()[0].type), "FP16");
  EXPECT_STREQ(ProtocolTypeName(model->inputs()[1].type), "BF16");

  using paddle_lite::bfloat16;
  using paddle_lite::float16;
  // Request i has i + 1 rows of 3 values.
  auto request = [](const std::string& name, int i) {
    InferRequest r;
    r.model = name;
    std::vector<float16> a;
    std::vector<bfloat16> b;
    for (int k = 0; k < 3 * (i + 1); ++k) {
      a.emplace_back(0.5f * k - i);
      b.emplace_back(100.0f * i + k);
    }
    for (auto [input, type, data, bytes] :
         {std::make_tuple("x16", DataType::FLOAT16,
                          static_cast<const void*>(a.data()), 2 * a.size()),
          std::make_tuple("xb16", DataType::BFLOAT16,
                          static_cast<const void*>(b.data()), 2 * b.size())}) {
      TensorData t;
      t.name = input;
      t.type = type;
      t.shape = {i + 1, 3};
      t.bytes.assign(static_cast<const char*>(data), bytes);
      r.inputs.push_back(std::move(t));
    }
    return r;
  };
  std::vector<std::future<InferResponse>> batched;
  for (int i = 0; i < 4; ++i) {
    batched.push_back(std::async(std::launch::async, [&, i] {
      return server.Infer(request("half_batched", i));
    }));
  }
  for (int i = 0; i < 4; ++i) {
    for (InferResponse response :
         {server.Infer(request("half", i)), batched[i].get()}) {
      ASSERT_TRUE(response.status.ok()) << response.status.message;
      ASSERT_EQ(response.outputs.size(), 3u);
      for (const TensorData& out : response.outputs) {
        EXPECT_EQ(out.shape, (std::vector<int64_t>{i + 1, 3})) << out.name;
      }
      const TensorData& sum = response.outputs[0];
      const TensorData& sum16 = response.outputs[1];
      const TensorData& sumb16 = response.outputs[2];
      EXPECT_EQ(sum16.type, DataType::FLOAT16);
      EXPECT_EQ(sumb16.type, DataType::BFLOAT16);
      ASSERT_EQ(sum16.bytes.size(), 2u * 3 * (i + 1));
      ASSERT_EQ(sumb16.bytes.size(), sum16.bytes.size());
      std::vector<float> got = AsFloats(sum);
      for (int k = 0; k < 3 * (i + 1); ++k) {
        const float want = 2 * static_cast<float>(float16(0.5f * k - i)) +
                           static_cast<float>(bfloat16(100.0f * i + k));
        EXPECT_EQ(got[k], want) << i << " " << k;
        uint16_t bits16, bitsb16;
        std::memcpy(&bits16, sum16.bytes.data() + 2 * k, 2);
        std::memcpy(&bitsb16, sumb16.bytes.data() + 2 * k, 2);
        EXPECT_EQ(bits16, float16(want).bits) << i << " " << k;
        EXPECT_EQ(bitsb16, bfloat16(want).bits) << i << " " << k;
      }
    }
  }
  EXPECT_LT(Runs(&server, "half_batched"), 4);
}

// Real models, among them two whose products oneDNN blocks otherwise as
// the rows change in number (the classifier's head ran on another kernel
// below 3 rows): batch invariance gives each request its answer alone.
TEST(ServerCore, BatchingARealModelGivesTheResultsOfUnbatchedRuns) {
  for (const char* model : {"ppocr_cls_mobile_v2", "clas_mbv3_small_x0_35_3cls",
                            "mlp_fluid_2018"}) {
    SCOPED_TRACE(model);
    const std::string dir = kModels + "/" + model;
    if (!fs::exists(dir)) GTEST_SKIP() << dir << " not present";
    std::string input_file, input;
    for (const auto& entry : fs::directory_iterator(dir + "/ref")) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("input_", 0) == 0) {
        input_file = entry.path().string();
        input = name.substr(6, name.size() - 6 - 4);  // input_<name>.npy
      }
    }
    ASSERT_FALSE(input.empty());
    // Unbatched runs with batch invariance (on by default for a model that
    // batches only): each row as a product of its own.
    Repository repo;
    repo.Add("plain", dir, R"({"batch_invariant": true})");
    repo.Add("batched", dir,
             R"({"max_batch_size": 8, "batch_delay_us": 300000})");
    InferenceServer server(repo.path());
    auto x = paddle_lite::framework::ReadNpy(input_file);
    const std::vector<float> base(x.data<float>(), x.data<float>() + x.numel());
    const size_t row = base.size() / static_cast<size_t>(x.dims()[0]);
    auto make = [&](const std::string& name, int rows, int seed) {
      InferRequest r;
      r.model = name;
      std::vector<float> values;
      for (int k = 0; k < rows; ++k) {
        for (size_t i = 0; i < row; ++i) {
          values.push_back(base[i] * (1.0f - 0.05f * (k + seed)));
        }
      }
      std::vector<int64_t> shape = x.dims();
      shape[0] = rows;
      r.inputs.push_back(Floats(input, shape, values));
      return r;
    };
    const std::vector<int> rows = {1, 2, 1, 3};
    std::vector<std::future<InferResponse>> batched;
    for (size_t i = 0; i < rows.size(); ++i) {
      batched.push_back(std::async(std::launch::async, [&, i] {
        return server.Infer(make("batched", rows[i], static_cast<int>(i)));
      }));
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      InferResponse b = batched[i].get();
      InferResponse alone =
          server.Infer(make("plain", rows[i], static_cast<int>(i)));
      ASSERT_TRUE(b.status.ok()) << b.status.message;
      ASSERT_TRUE(alone.status.ok()) << alone.status.message;
      EXPECT_EQ(b.outputs[0].shape, alone.outputs[0].shape);
      EXPECT_EQ(AsFloats(b.outputs[0]), AsFloats(alone.outputs[0]))
          << "request " << i;
      // And as the request's rows give one by one.
      for (int k = 0; k < rows[i]; ++k) {
        InferRequest one = make("plain", 1, static_cast<int>(i) + k);
        InferResponse row_alone = server.Infer(std::move(one));
        ASSERT_TRUE(row_alone.status.ok()) << row_alone.status.message;
        const std::vector<float> got = AsFloats(b.outputs[0]);
        const std::vector<float> want = AsFloats(row_alone.outputs[0]);
        ASSERT_EQ(got.size() % static_cast<size_t>(rows[i]), 0u);
        const size_t per_row = got.size() / static_cast<size_t>(rows[i]);
        EXPECT_EQ(std::vector<float>(got.begin() + k * per_row,
                                     got.begin() + (k + 1) * per_row),
                  want)
            << "request " << i << " row " << k;
      }
    }
    EXPECT_GE(Runs(&server, "batched"), 1);
    EXPECT_LT(Runs(&server, "batched"), static_cast<int>(rows.size()));
  }
}

// Requests that find the instance idle run on their own thread, the
// others wait for its worker: mixed, every answer is the one it gets
// alone.
TEST(ServerCore, InlineAndQueuedRunsGiveTheSameAnswers) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  std::vector<std::vector<float>> alone;
  for (int seed = 0; seed < 4; ++seed) {
    InferResponse r = server.Infer(DemoRequest(1 + seed % 2, seed));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    alone.push_back(AsFloats(r.outputs[0]));
  }
  std::vector<std::future<int>> clients;
  for (int c = 0; c < 6; ++c) {
    clients.push_back(std::async(std::launch::async, [&, c] {
      int wrong = 0;
      for (int i = 0; i < 12; ++i) {
        const int seed = (c + i) % 4;
        InferResponse r = server.Infer(DemoRequest(1 + seed % 2, seed));
        if (!r.status.ok() || AsFloats(r.outputs[0]) != alone[seed]) ++wrong;
      }
      return wrong;
    }));
  }
  for (auto& c : clients) EXPECT_EQ(c.get(), 0);
  EXPECT_EQ(Runs(&server, "demo"), 4 + 6 * 12);
}

// A model that batches with no delay runs a request that finds its
// instance idle and nothing queued on the caller's thread, as one that
// does not batch: a worker would batch only what is queued, here nothing.
// Requests arriving during a run still queue and go as one batch. With a
// delay, the request waits in the queue for others.
TEST(ServerCore, BatchingWithoutDelayRunsAtOnceAndBatchesWhatQueues) {
  Repository repo;
  repo.Add("demo", DemoModelDir(), R"({"max_batch_size": 8192})");
  repo.Add("delayed", DemoModelDir(),
           R"({"max_batch_size": 8192, "batch_delay_us": 300000})");
  InferenceServer server(repo.path());
  const std::vector<float> want = [&] {
    InferResponse r = server.Infer(DemoRequest(1, 0, "delayed"));
    EXPECT_TRUE(r.status.ok()) << r.status.message;
    return r.outputs.empty() ? std::vector<float>() : AsFloats(r.outputs[0]);
  }();
  ASSERT_FALSE(want.empty());

  for (const std::string model : {"demo", "delayed"}) {
    std::promise<std::pair<std::thread::id, InferResponse>> answered;
    auto answer = answered.get_future();
    server.InferAsync(DemoRequest(1, 0, model), [&](InferResponse r) {
      answered.set_value({std::this_thread::get_id(), std::move(r)});
    });
    // Inline: answered before InferAsync returned, on this thread.
    const bool at_once =
        answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    auto [thread, response] = answer.get();
    ASSERT_TRUE(response.status.ok()) << model << response.status.message;
    EXPECT_EQ(AsFloats(response.outputs[0]), want) << model;
    EXPECT_EQ(at_once, model == "demo") << model;
    EXPECT_EQ(thread == std::this_thread::get_id(), model == "demo") << model;
  }

  // A long request holds the instance (on its caller's thread); three
  // arriving meanwhile queue, and a worker runs them as one batch.
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  const int runs_before = Runs(&server, "demo");
  auto busy = std::async(std::launch::async,
                         [&] { return server.Infer(DemoRequest(8000, 0)); });
  for (int i = 0; i < kWaitMs && !m->busy(); ++i) usleep(1000);
  ASSERT_TRUE(m->busy());
  std::vector<std::future<InferResponse>> queued;
  for (int i = 0; i < 3; ++i) {
    queued.push_back(std::async(
        std::launch::async, [&] { return server.Infer(DemoRequest(1, 0)); }));
  }
  // Only a worker takes queued requests, all compatible ones at once (up to
  // 8192 rows), and only once the instance is free: three seen queued
  // together go as one batch.
  auto long_run_going = [&] {
    return busy.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  };
  bool all_queued_behind = false;
  for (int i = 0; i < kWaitMs && !all_queued_behind; ++i) {
    const bool going = long_run_going();
    all_queued_behind = m->queued() == 3;
    if (!going) break;
    usleep(1000);
  }
  ASSERT_TRUE(busy.get().status.ok());
  for (auto& q : queued) {
    InferResponse r = q.get();
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(AsFloats(r.outputs[0]), want);
  }
  if (!all_queued_behind) {
    GTEST_SKIP() << "the 8000-row run ended before three requests queued "
                    "behind it (a fast machine)";
  }
  EXPECT_EQ(Runs(&server, "demo"), runs_before + 2);
}

TEST(ServerCore, FullQueueIsRefusedAtOnceAndTimeoutsExpireInTheQueue) {
  Repository repo;
  repo.Add("demo", DemoModelDir(), R"({"queue_limit": 2})");
  InferenceServer server(repo.path());
  // A long run holds the only instance; while it runs the queue takes two
  // requests and refuses the third.
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  std::atomic<int64_t> busy_ended_ms{0};
  auto busy = std::async(std::launch::async, [&] {
    InferResponse r = server.Infer(DemoRequest(8000, 0));
    busy_ended_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        Clock::now() - began)
                        .count();
    return r;
  });
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  // Wait until the worker took the long run. Generous: making and checking
  // 8000 rows takes seconds under ThreadSanitizer.
  for (int i = 0; i < kWaitMs && !m->busy(); ++i) usleep(1000);
  ASSERT_TRUE(m->busy());
  InferRequest timed = DemoRequest(1, 0);
  timed.timeout_us = 200000;
  auto expiring =
      std::async(std::launch::async, [&] { return server.Infer(timed); });
  auto waiting = std::async(std::launch::async,
                            [&] { return server.Infer(DemoRequest(1, 1)); });
  for (int i = 0; i < kWaitMs && m->queued() < 2; ++i) usleep(1000);
  ASSERT_EQ(m->queued(), 2u);
  auto start = std::chrono::steady_clock::now();
  InferResponse refused = server.Infer(DemoRequest(1, 0));
  EXPECT_EQ(refused.status.code, StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status.message.find("queue is full"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(50));
  InferResponse expired = expiring.get();
  const auto expired_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              Clock::now() - began)
                              .count();
  EXPECT_EQ(expired.status.code, StatusCode::kDeadlineExceeded)
      << expired.status.message;
  EXPECT_NE(expired.status.message.find("200000 us"), std::string::npos)
      << expired.status.message;
  EXPECT_TRUE(waiting.get().status.ok());
  EXPECT_TRUE(busy.get().status.ok());
  // Answered at its deadline, not when the instance came free: unless the
  // long run was too short to tell, it was still going.
  if (busy_ended_ms > expired_ms + 100) {
    SUCCEED();
  } else {
    EXPECT_LT(busy_ended_ms, 350) << "the expired request waited for the run";
  }
}

// Requests gathered into a batch that waits for more (batch_delay_us)
// are waiting too: queue_limit counts them, as it counts queued ones.
// (They had left the queue, so any number could wait there.)
TEST(ServerCore, ABatchThatWaitsCountsAgainstTheQueueLimit) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"queue_limit": 2, "max_batch_size": 8, )"
           R"("batch_delay_us": 2000000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  auto first = std::async(std::launch::async,
                          [&] { return server.Infer(DemoRequest(1, 0)); });
  for (int i = 0; i < kWaitMs && m->queued() < 1; ++i) usleep(1000);
  ASSERT_EQ(m->queued(), 1u);
  auto second = std::async(std::launch::async,
                           [&] { return server.Infer(DemoRequest(1, 1)); });
  for (int i = 0; i < kWaitMs && m->queued() < 2; ++i) usleep(1000);
  ASSERT_EQ(m->queued(), 2u);
  InferResponse refused = server.Infer(DemoRequest(1, 0));
  EXPECT_EQ(refused.status.code, StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status.message.find("queue is full (2 requests waiting"),
            std::string::npos)
      << refused.status.message;
  // The two run as one batch once the delay is out.
  EXPECT_TRUE(first.get().status.ok());
  EXPECT_TRUE(second.get().status.ok());
  EXPECT_EQ(m->queued(), 0u);
  EXPECT_EQ(Runs(&server, "demo"), 1);
}

// Starts a run too long and too large to batch on "demo" (its only
// instance), then a one-row request that queues behind it: returns the
// long run; `queued` gets the one-row request.
std::future<InferResponse> LongRunWithOneQueued(
    InferenceServer* server,
    const ModelVersion& m,
    std::future<InferResponse>* queued) {
  auto busy = std::async(std::launch::async, [server] {
    return server->Infer(DemoRequest(8000, 0));
  });
  for (int i = 0; i < kWaitMs && !m.busy(); ++i) usleep(1000);
  EXPECT_TRUE(m.busy());
  *queued = std::async(std::launch::async,
                       [server] { return server->Infer(DemoRequest(1, 0)); });
  for (int i = 0; i < kWaitMs && m.queued() < 1; ++i) usleep(1000);
  return busy;
}

// A worker that forms a batch lets the lock go to answer a request it
// found abandoned; the members it took meanwhile still count against
// queue_limit (they counted in no queue then, so one arriving could pass
// the limit by up to max_batch_size).
TEST(ServerCore, ABatchAnsweringAnAbandonedRequestStillCountsItsMembers) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"queue_limit": 2, "max_batch_size": 2, )"
           R"("batch_delay_us": 10000000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  // A request and an abandoned one queue behind a long run.
  std::future<InferResponse> first;
  auto busy = LongRunWithOneQueued(&server, *m, &first);
  // The abandoned one's answer waits, in the worker, until the test is
  // done with the queue.
  std::promise<void> dropping, done_probing;
  std::shared_future<void> probed = done_probing.get_future().share();
  InferRequest gone = DemoRequest(1, 1);
  gone.abandoned = [] { return true; };
  gone.before_answer = [&dropping, probed](InferResponse*) {
    dropping.set_value();
    probed.wait();
  };
  auto dropped = std::async(std::launch::async,
                            [&] { return server.Infer(std::move(gone)); });
  std::future<void> dropping_began = dropping.get_future();
  // Both queued behind the long run: the worker then finds the abandoned
  // one in the gather of the request it takes first (on a machine that
  // ends the run sooner, in a later one, which counted its members).
  bool queued_behind = false;
  for (int i = 0; i < kWaitMs && !queued_behind &&
                  dropping_began.wait_for(std::chrono::seconds(0)) !=
                      std::future_status::ready;
       ++i) {
    queued_behind = m->queued() == 2;
    usleep(1000);
  }
  const bool began = dropping_began.wait_for(std::chrono::seconds(60)) ==
                     std::future_status::ready;
  if (!began || !queued_behind) {
    done_probing.set_value();
    dropped.get();
    first.get();
    busy.get();
  }
  ASSERT_TRUE(began);
  if (!queued_behind) {
    GTEST_SKIP() << "the 8000-row run ended before two requests queued "
                    "behind it (a machine this fast needs a longer run)";
  }
  // The first request is in the batch being formed; one more fills the
  // queue, and the next is refused.
  auto second = std::async(std::launch::async,
                           [&] { return server.Infer(DemoRequest(1, 1)); });
  for (int i = 0; i < kWaitMs && m->queued() < 2; ++i) usleep(1000);
  const size_t queued = m->queued();
  // On a thread: were it queued, it would wait for the worker held above.
  auto third = std::async(std::launch::async,
                          [&] { return server.Infer(DemoRequest(1, 0)); });
  const bool answered_at_once =
      third.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  done_probing.set_value();
  EXPECT_EQ(queued, 2u);
  EXPECT_TRUE(answered_at_once);
  EXPECT_EQ(third.get().status.code, StatusCode::kResourceExhausted);
  EXPECT_EQ(dropped.get().status.code, StatusCode::kCancelled);
  // The two fill the batch, which runs at once.
  EXPECT_TRUE(first.get().status.ok());
  EXPECT_TRUE(second.get().status.ok());
  EXPECT_TRUE(busy.get().status.ok());
  EXPECT_EQ(Runs(&server, "demo"), 2);
}

// A worker taking requests out of the queue that meets an exception
// (memory running out as its batch grows; here a caller's abandoned() that
// throws) answers what it took and goes on: the exception left the worker
// thread and ended the process.
TEST(ServerCore, AWorkerThatThrowsWhileTakingABatchAnswersAndGoesOn) {
  Repository repo;
  repo.Add("demo", DemoModelDir(), R"({"max_batch_size": 4})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  // Two requests queue behind a long run; the worker takes the first
  // and, in its batch, meets the second.
  std::future<InferResponse> first;
  auto busy = LongRunWithOneQueued(&server, *m, &first);
  InferRequest throwing = DemoRequest(1, 1);
  throwing.abandoned = []() -> bool { throw std::bad_alloc(); };
  auto second = std::async(std::launch::async,
                           [&] { return server.Infer(std::move(throwing)); });
  bool queued_behind = false;
  for (int i = 0; i < kWaitMs && !queued_behind && m->busy(); ++i) {
    queued_behind = m->queued() == 2;
    usleep(1000);
  }
  const InferResponse taken = first.get();
  const InferResponse met = second.get();
  EXPECT_TRUE(busy.get().status.ok());
  // Answered, not left waiting; and the worker serves what comes next.
  EXPECT_TRUE(server.Infer(DemoRequest(1, 2)).status.ok());
  if (!queued_behind) {
    GTEST_SKIP() << "the 8000-row run ended before two requests queued "
                    "behind it (a machine this fast needs a longer run)";
  }
  EXPECT_EQ(taken.status.code, StatusCode::kResourceExhausted)
      << taken.status.message;
  EXPECT_EQ(met.status.code, StatusCode::kResourceExhausted)
      << met.status.message;
  EXPECT_NE(met.status.message.find("ran out of memory"), std::string::npos)
      << met.status.message;
}

// Work of a worker or of the deadline thread that throws (memory running
// out while a request is answered, its metrics recorded or its message
// made) answers the request RESOURCE_EXHAUSTED, and the threads go on: the
// exception had ended the process. A request whose answering throws
// stands in for memory running out there.
TEST(ServerCore, AWorkerWhoseAnswerThrowsAnswersAndGoesOn) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  auto throwing = [](int64_t timeout_us) {
    InferRequest r = DemoRequest(1, 0);
    r.timeout_us = timeout_us;
    r.before_answer = [](InferResponse*) { throw std::bad_alloc(); };
    return r;
  };
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  // A long run holds the only instance; meanwhile one request expires in
  // the queue (the deadline thread answers it) and one waits for the
  // worker.
  auto busy = std::async(std::launch::async,
                         [&] { return server.Infer(DemoRequest(8000, 0)); });
  for (int i = 0; i < kWaitMs && !m->busy(); ++i) usleep(1000);
  ASSERT_TRUE(m->busy());
  auto expiring = std::async(std::launch::async,
                             [&] { return server.Infer(throwing(1000)); });
  auto queued =
      std::async(std::launch::async, [&] { return server.Infer(throwing(0)); });
  // One whose caller has gone: the worker that takes it drops it.
  auto dropped = std::async(std::launch::async, [&] {
    InferRequest r = throwing(0);
    r.abandoned = [] { return true; };
    return server.Infer(std::move(r));
  });
  for (std::future<InferResponse>* answer : {&expiring, &queued, &dropped}) {
    InferResponse r = answer->get();
    EXPECT_EQ(r.status.code, StatusCode::kResourceExhausted)
        << r.status.message;
    EXPECT_NE(r.status.message.find("ran out of memory"), std::string::npos)
        << r.status.message;
  }
  EXPECT_TRUE(busy.get().status.ok());
  // Each counted once, as a failure.
  EXPECT_NE(
      server.metrics().Render().find(
          "pdlite_inference_failures_total{model=\"demo\",version=\"1\"} 3\n"),
      std::string::npos)
      << server.metrics().Render();
  // Both threads still serve.
  for (int64_t timeout_us : {int64_t{0}, int64_t{60000000}}) {
    InferRequest r = DemoRequest(1, 1);
    r.timeout_us = timeout_us;
    InferResponse ok = server.Infer(std::move(r));
    EXPECT_TRUE(ok.status.ok()) << ok.status.message;
  }
}

// Stop ends every worker while one forms a batch: a request that joins
// the batch leaves another worker asleep (it is the former's to take),
// and when the former takes it and the queue is empty, the sleeper must
// be woken to see that. Stop came between the request's arrival and its
// gathering; it hung in join now and then (a race: many rounds).
TEST(ServerCore, StopEndsEveryWorkerWhileABatchForms) {
  ModelConfig config;
  config.instances = 4;
  config.max_batch_size = 64;
  config.batch_delay_us = 60000000;
  Metrics metrics;
  constexpr int kRounds = 100;
  for (int round = 0; round < kRounds; ++round) {
    auto version = std::make_shared<ModelVersion>("demo", "1", DemoModelDir(),
                                                  config, &metrics);
    ASSERT_TRUE(version->ready()) << version->error();
    auto answered = std::make_shared<std::atomic<int>>(0);
    auto ok = std::make_shared<std::atomic<int>>(0);
    auto done = [answered, ok](InferResponse r) {
      if (r.status.ok()) ++*ok;
      ++*answered;
    };
    version->InferAsync(DemoRequest(1, 0), done);
    for (int i = 0; i < kWaitMs && !version->busy(); ++i) usleep(1000);
    ASSERT_TRUE(version->busy());
    // Stop on its own thread, spinning until the request is queued, so
    // that it comes before the batch's worker wakes. Detached: a Stop
    // that hangs fails the test instead of hanging it (the version is
    // then left to that thread).
    auto queued = std::make_shared<std::atomic<bool>>(false);
    auto stopped = std::make_shared<std::promise<void>>();
    std::future<void> stop_ended = stopped->get_future();
    std::thread([version, queued, stopped] {
      while (!*queued) {
      }
      version->Stop();
      stopped->set_value();
    }).detach();
    InferRequest joining = DemoRequest(1, 1);
    version->InferAsync(std::move(joining), done);
    *queued = true;
    ASSERT_EQ(stop_ended.wait_for(std::chrono::milliseconds(kWaitMs)),
              std::future_status::ready)
        << "Stop hung in round " << round;
    EXPECT_EQ(*answered, 2);
    EXPECT_EQ(*ok, 2);
  }
}

// An unload stops the version once no caller holds it, and its workers
// then answer what it queued: a queued request whose deadline passes
// meanwhile is answered then, not when a worker reaches it.
TEST(ServerCore, QueuedRequestsExpireWhileAnUnloadDrainsTheQueue) {
  paddle_lite::testing::ScratchDir loop_dir("loop_model");
  paddle_lite::testing::SaveCountingLoopModel(loop_dir.path() + "/model");
  Repository repo;
  repo.Add("loop", loop_dir.path(), R"({"max_loop_iterations": 0})");
  InferenceServer server(repo.path(), ExplicitModelControl());
  auto count_to = [](int64_t n) {
    InferRequest r;
    r.model = "loop";
    r.inputs.push_back(Int64("i", 0));
    r.inputs.push_back(Int64("n", n));
    return r;
  };
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                 t)
        .count();
  };
  // The loop's length for a run of about 100 ms here, once warm
  // (ThreadSanitizer slows it many times; runs of the loop scale alike).
  constexpr int64_t kProbe = 20000;
  ASSERT_TRUE(server.Infer(count_to(kProbe)).status.ok());
  Clock::time_point began = Clock::now();
  ASSERT_TRUE(server.Infer(count_to(kProbe)).status.ok());
  const int64_t probe_ms = std::max<int64_t>(ms_since(began), 1);
  const int64_t short_n = std::max<int64_t>(kProbe * 100 / probe_ms, 1000);
  const int64_t short_ms = std::max<int64_t>(probe_ms * short_n / kProbe, 1);
  // A short run holds the only instance, its caller the version; queued
  // behind it, a run 20 times as long, then a request due 3 short runs
  // after the first began: past its end, when the unload stops the
  // version, and long before the second's.
  began = Clock::now();
  auto busy = std::async(std::launch::async,
                         [&] { return server.Infer(count_to(short_n)); });
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("loop", "", &m).ok());
  for (int i = 0; i < kWaitMs && !m->busy(); ++i) usleep(100);
  ASSERT_TRUE(m->busy());
  std::atomic<int64_t> ahead_ended_ms{0}, expired_ms{0};
  auto ahead = std::async(std::launch::async, [&] {
    InferResponse r = server.Infer(count_to(20 * short_n));
    ahead_ended_ms = ms_since(began);
    return r;
  });
  for (int i = 0; i < kWaitMs && m->queued() < 1; ++i) usleep(100);
  InferRequest timed = count_to(1);
  timed.timeout_us =
      std::max<int64_t>((3 * short_ms - ms_since(began)) * 1000, 1000);
  auto expiring = std::async(std::launch::async, [&] {
    InferResponse r = server.Infer(timed);
    expired_ms = ms_since(began);
    return r;
  });
  for (int i = 0; i < kWaitMs && m->queued() < 2; ++i) usleep(100);
  ASSERT_EQ(m->queued(), 2u);
  m.reset();
  auto unloaded =
      std::async(std::launch::async, [&] { return server.Unload("loop"); });
  InferResponse expired = expiring.get();
  EXPECT_EQ(expired.status.code, StatusCode::kDeadlineExceeded)
      << expired.status.message;
  EXPECT_TRUE(busy.get().status.ok());
  EXPECT_TRUE(ahead.get().status.ok());
  EXPECT_TRUE(unloaded.get().ok());
  // Due at 3 short runs, the run ahead of it ending at about 21: answered
  // well before that run ended, not when a worker took it after.
  EXPECT_LT(expired_ms, ahead_ended_ms / 2)
      << "the expired request waited for the run ahead of it (a short run "
         "takes about "
      << short_ms << " ms)";
}

// A caller's own deadline (gRPC's) and its going away: a request queued
// past the one, or whose caller did the other, is answered without
// running; one arriving past its caller's deadline is not run even with
// an instance idle.
// A demo request whose caller is gone from the start (checked when a
// worker takes it from the queue), sent on a thread of its own.
std::future<InferResponse> SendAbandoned(InferenceServer* server) {
  InferRequest request = DemoRequest(1, 1);
  request.abandoned = [] { return true; };
  return std::async(std::launch::async,
                    [server, request] { return server->Infer(request); });
}

TEST(ServerCore, RequestsWhoseCallerIsGoneAreNotRun) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  using Clock = std::chrono::steady_clock;
  InferRequest late = DemoRequest(1, 0);
  late.caller_deadline = Clock::now() - std::chrono::milliseconds(1);
  InferResponse refused = server.Infer(late);
  EXPECT_EQ(refused.status.code, StatusCode::kDeadlineExceeded);
  EXPECT_NE(refused.status.message.find("had passed when the request arrived"),
            std::string::npos)
      << refused.status.message;
  EXPECT_EQ(Runs(&server, "demo"), 0);

  // A long run holds the only instance while the others queue.
  auto busy = std::async(std::launch::async,
                         [&] { return server.Infer(DemoRequest(8000, 0)); });
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  for (int i = 0; i < kWaitMs && !m->busy(); ++i) usleep(1000);
  ASSERT_TRUE(m->busy());
  auto dropped = SendAbandoned(&server);
  auto waiting = std::async(std::launch::async,
                            [&] { return server.Infer(DemoRequest(1, 1)); });
  for (int i = 0; i < kWaitMs && m->queued() < 2 && m->busy(); ++i) {
    usleep(1000);
  }
  const bool queued_behind = m->queued() == 2;
  InferRequest timed = DemoRequest(1, 0);
  timed.caller_deadline = Clock::now() + std::chrono::milliseconds(50);
  InferResponse expired = server.Infer(timed);
  const bool run_outlasted =
      busy.wait_for(std::chrono::seconds(0)) == std::future_status::timeout;
  InferResponse not_run = dropped.get();
  EXPECT_TRUE(waiting.get().status.ok());
  EXPECT_TRUE(busy.get().status.ok());
  if (!queued_behind || !run_outlasted) {
    GTEST_SKIP() << "the long run ended before the requests behind it could "
                    "tell (a machine this fast needs a longer run)";
  }
  EXPECT_EQ(expired.status.code, StatusCode::kDeadlineExceeded)
      << expired.status.message;
  EXPECT_NE(expired.status.message.find("the caller's deadline passed"),
            std::string::npos)
      << expired.status.message;
  EXPECT_EQ(not_run.status.code, StatusCode::kCancelled)
      << not_run.status.message;
  EXPECT_NE(not_run.status.message.find("cancelled"), std::string::npos);
  // The long run and the one still waited for; not the other two.
  EXPECT_EQ(Runs(&server, "demo"), 2);
  EXPECT_NE(server.metrics().Render().find(
                "pdlite_inference_callers_gone_total{model=\"demo\",version="
                "\"1\"} 3\n"),
            std::string::npos);
}

// Sends a row to "demo" (which batches with a delay) on a thread of its
// own, and returns once a worker has taken it and waits for more to join
// its batch.
std::future<InferResponse> FirstOfAWaitingBatch(InferenceServer* server) {
  std::shared_ptr<const ModelVersion> m;
  EXPECT_TRUE(server->Find("demo", "", &m).ok());
  auto first = std::async(std::launch::async, [server] {
    return server->Infer(DemoRequest(1, 0));
  });
  for (int i = 0; i < kWaitMs && m && !m->busy(); ++i) usleep(1000);
  EXPECT_TRUE(m && m->busy());
  return first;
}

// Batching leaves out a queued request whose caller went away: the batch
// is made of the others, and it is answered CANCELLED.
TEST(ServerCore, AbandonedRequestsAreLeftOutOfABatch) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 2, "batch_delay_us": 2000000})");
  InferenceServer server(repo.path());
  // The first waits (up to 2 s) for a second row to fill its batch.
  auto first = FirstOfAWaitingBatch(&server);
  auto dropped = SendAbandoned(&server);
  InferResponse not_run = dropped.get();
  EXPECT_EQ(not_run.status.code, StatusCode::kCancelled)
      << not_run.status.message;
  // Answered while the batch still waits: the request fills it.
  auto second = std::async(std::launch::async,
                           [&] { return server.Infer(DemoRequest(1, 1)); });
  EXPECT_TRUE(first.get().status.ok());
  EXPECT_TRUE(second.get().status.ok());
  EXPECT_EQ(Runs(&server, "demo"), 1);
  EXPECT_NE(server.metrics().Render().find(
                "pdlite_inference_callers_gone_total{model=\"demo\",version="
                "\"1\"} 1\n"),
            std::string::npos);
}

// A request that joined a batch still waiting for more is not run once
// its deadline passes or its caller goes: the one is answered at its
// deadline (and the rest run then), the other when the batch runs.
TEST(ServerCore, BatchMembersExpireAndAreDroppedWhileTheBatchWaits) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 4, "batch_delay_us": 2000000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  using Clock = std::chrono::steady_clock;
  auto first = FirstOfAWaitingBatch(&server);
  // Joins the waiting batch (nothing stays queued), then expires in it.
  InferRequest timed = DemoRequest(1, 1);
  timed.timeout_us = 100000;
  const auto sent = Clock::now();
  auto expiring =
      std::async(std::launch::async, [&] { return server.Infer(timed); });
  InferResponse expired = expiring.get();
  EXPECT_EQ(expired.status.code, StatusCode::kDeadlineExceeded)
      << expired.status.message;
  EXPECT_LT(Clock::now() - sent, std::chrono::milliseconds(1500));
  EXPECT_TRUE(first.get().status.ok());
  EXPECT_EQ(Runs(&server, "demo"), 1);

  // A caller that goes while its request waits in the batch.
  auto gone = std::make_shared<std::atomic<bool>>(false);
  auto another = FirstOfAWaitingBatch(&server);
  InferRequest leaving = DemoRequest(1, 1);
  leaving.abandoned = [gone] { return gone->load(); };
  auto dropped =
      std::async(std::launch::async, [&] { return server.Infer(leaving); });
  // Both waiting (queued() counts a waiting batch's members too).
  for (int i = 0; i < kWaitMs && m->queued() < 2; ++i) usleep(1000);
  usleep(50000);  // taken into the batch by now
  *gone = true;
  InferResponse not_run = dropped.get();
  EXPECT_EQ(not_run.status.code, StatusCode::kCancelled)
      << not_run.status.message;
  EXPECT_TRUE(another.get().status.ok());
  // One more run, of the request that stayed.
  EXPECT_EQ(Runs(&server, "demo"), 2);
  EXPECT_NE(server.metrics().Render().find(
                "pdlite_batch_size_sum{model=\"demo\",version=\"1\"} 2\n"),
            std::string::npos)
      << server.metrics().Render();
}

// With several instances, a request that arrives while one instance's
// batch waits for more joins it; it does not begin a batch of its own on
// an idle instance (and wait out the delay there).
TEST(ServerCore, RequestsJoinTheWaitingBatchWhenOtherInstancesAreIdle) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"instances": 3, "max_batch_size": 3,
               "batch_delay_us": 2000000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  std::vector<std::future<InferResponse>> answers;
  for (int i = 0; i < 3; ++i) {
    answers.push_back(std::async(std::launch::async, [&server, i] {
      return server.Infer(DemoRequest(1, i));
    }));
    usleep(20000);
  }
  for (auto& a : answers) EXPECT_TRUE(a.get().status.ok());
  // A batch of three, not three batches of one.
  EXPECT_EQ(Runs(&server, "demo"), 1);
}

// A timeout too long for the clock's arithmetic is no limit, not an
// overflow into the past (a client may send INT64_MAX for "none").
TEST(ServerCore, TheLongestTimeoutsAreNoLimit) {
  Repository repo;
  // Batching with a delay: every request waits in the queue.
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 2, "batch_delay_us": 1000})");
  InferenceServer server(repo.path());
  for (int64_t timeout_us : {std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::max() / 1000 + 1}) {
    InferRequest r = DemoRequest(1, 0);
    r.timeout_us = timeout_us;
    InferResponse answer = server.Infer(r);
    EXPECT_TRUE(answer.status.ok())
        << timeout_us << ": " << answer.status.message;
  }
}

// A request's own timeout may shorten the model's timeout_ms, not lengthen
// it; 0 is the model's (Triton's rule), and without one in the model any
// timeout holds. Which one applied shows in the 504's message.
TEST(ServerCore, ARequestsTimeoutShortensTheModelsButNeverLengthensIt) {
  Repository repo;
  // Batching that waits a second for a second row: each request waits in
  // the queue until its timeout.
  repo.Add("capped", DemoModelDir(),
           R"({"max_batch_size": 2, "batch_delay_us": 1000000,
               "timeout_ms": 100})");
  repo.Add("open", DemoModelDir(),
           R"({"max_batch_size": 2, "batch_delay_us": 1000000})");
  InferenceServer server(repo.path());
  const std::vector<std::tuple<std::string, int64_t, std::string>> cases = {
      {"capped", -1, "after 100000 us"},       // none: the model's
      {"capped", 0, "after 100000 us"},        // 0: the model's
      {"capped", 5000000, "after 100000 us"},  // longer: the model's
      {"capped", 20000, "after 20000 us"},     // shorter: its own
      {"open", 20000, "after 20000 us"},
  };
  for (const auto& [model, timeout_us, expected] : cases) {
    InferRequest r = DemoRequest(1, 0, model);
    r.timeout_us = timeout_us;
    InferResponse answer = server.Infer(r);
    EXPECT_EQ(answer.status.code, StatusCode::kDeadlineExceeded)
        << model << " " << timeout_us << ": " << answer.status.message;
    EXPECT_NE(answer.status.message.find(expected), std::string::npos)
        << model << " " << timeout_us << ": " << answer.status.message;
  }
}

// A worker gathering a batch lets the lock go to answer a request whose
// caller has gone; a request arriving then (its wake-up finding no worker
// waiting) still joins the batch at once rather than after the whole
// batch delay.
TEST(ServerCore, ARequestArrivingWhileTheBatchDropsAGoneOneJoinsAtOnce) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"instances": 2, "max_batch_size": 2,
               "batch_delay_us": 5000000})");
  InferenceServer server(repo.path());
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  auto first = std::async(std::launch::async,
                          [&] { return server.Infer(DemoRequest(1, 0)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Gone from the start; answering it takes 300 ms.
  InferRequest gone = DemoRequest(1, 1);
  gone.abandoned = [] { return true; };
  std::promise<InferResponse> gone_answer;
  server.InferAsync(gone, [&gone_answer](InferResponse r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    gone_answer.set_value(std::move(r));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  InferResponse joined = server.Infer(DemoRequest(1, 2));
  const int64_t joined_after_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                            began)
          .count();
  EXPECT_TRUE(joined.status.ok()) << joined.status.message;
  EXPECT_TRUE(first.get().status.ok());
  EXPECT_EQ(gone_answer.get_future().get().status.code, StatusCode::kCancelled);
  EXPECT_LT(joined_after_ms, 3000) << "the request waited out the batch delay";
}

// Loads "demo" (of a server with model control) with the smallest
// max_run_mb that a request of `rows` rows passes and twice as many rows
// do not, batching up to twice `rows` rows with a long delay (a batch of
// two such requests runs once it is full).
void LoadDemoWhereABatchOfTwoFails(InferenceServer* server, int rows) {
  int limit_mb = 0;
  for (int mb = 1; mb <= 256 && limit_mb == 0; ++mb) {
    ASSERT_TRUE(
        server->Load("demo", R"({"max_run_mb": )" + std::to_string(mb) + "}")
            .ok());
    if (server->Infer(DemoRequest(rows, 0)).status.ok()) limit_mb = mb;
  }
  ASSERT_GT(limit_mb, 0);
  ASSERT_FALSE(server->Infer(DemoRequest(2 * rows, 0)).status.ok())
      << "twice the rows fit in " << limit_mb << " MB";
  ASSERT_TRUE(server
                  ->Load("demo", R"({"max_run_mb": )" +
                                     std::to_string(limit_mb) +
                                     R"(, "max_batch_size": )" +
                                     std::to_string(2 * rows) +
                                     R"(, "batch_delay_us": 5000000})")
                  .ok());
}

// A server whose "demo" fails a batch of two requests of kRows rows
// where each runs alone (a memory limit that one request's rows pass and
// the batch's do not).
class ServerWhereABatchOfTwoFails : public ::testing::Test {
 protected:
  static constexpr int kRows = 64;
  void SetUp() override {
    repo_.Add("demo", DemoModelDir());
    server_ =
        std::make_unique<InferenceServer>(repo_.path(), ExplicitModelControl());
    LoadDemoWhereABatchOfTwoFails(server_.get(), kRows);
  }
  Repository repo_;
  std::unique_ptr<InferenceServer> server_;
};

// When a batched run fails where its requests would not, each runs alone;
// one whose caller went away meanwhile is not run.
TEST_F(ServerWhereABatchOfTwoFails, AMemberWhoseCallerLeftIsNotRunAlone) {
  InferenceServer& server = *server_;
  // The second request's caller leaves once the first is answered.
  std::atomic<bool> left{false};
  std::promise<InferResponse> first_answer, second_answer;
  server.InferAsync(DemoRequest(kRows, 0), [&](InferResponse r) {
    left = true;
    first_answer.set_value(std::move(r));
  });
  InferRequest second = DemoRequest(kRows, 1);
  second.abandoned = [&left] { return left.load(); };
  server.InferAsync(
      second, [&](InferResponse r) { second_answer.set_value(std::move(r)); });
  InferResponse a = first_answer.get_future().get();
  EXPECT_TRUE(a.status.ok()) << a.status.message;
  InferResponse b = second_answer.get_future().get();
  EXPECT_EQ(b.status.code, StatusCode::kCancelled) << b.status.message;
}

// Such failures cost every batch its runs twice: after three batches in a
// row failed so, the model is not batched again.
// A batch past a limit says nothing of smaller ones (and clients choose
// their requests' sizes): however many fail so, the model still batches.
TEST_F(ServerWhereABatchOfTwoFails, BatchesPastALimitDoNotStopBatching) {
  InferenceServer& server = *server_;
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  for (int batch = 1; batch <= 4; ++batch) {
    auto a = std::async(std::launch::async,
                        [&] { return server.Infer(DemoRequest(kRows, 0)); });
    InferResponse b = server.Infer(DemoRequest(kRows, 1));
    EXPECT_TRUE(a.get().status.ok());
    EXPECT_TRUE(b.status.ok()) << b.status.message;
  }
  EXPECT_TRUE(m->batches());
  EXPECT_EQ(m->Served().max_batch_size, 2 * kRows);
}

// A model that runs one row at a time (here a reshape to [1, 3]) fails
// every batch where each request runs alone, each batch costing its runs
// twice: after three such batches in a row it is not batched again.
TEST(ServerCore, AModelWhoseBatchesFailWhereItsRequestsDoNotStopsBatching) {
  BuiltModel model(
      "one_row", R"({"max_batch_size": 2, "batch_delay_us": 5000000})",
      [](paddle_lite::framework::ProgramBuilder& b) {
        auto x = b.AddInput("x", paddle_lite::framework::DataType::kFloat32,
                            {-1, 3});
        auto y = b.AddVar("y");
        b.AddVar("x_shape");
        b.AddOp("reshape2", {{"X", {x}}},
                {{"Out", {y}}, {"XShape", {"x_shape"}}},
                {{"shape", std::vector<int>{1, 3}}});
        b.AddOutput(y);
      });
  InferenceServer server(model.repository());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("one_row", "", &m).ok());
  ASSERT_TRUE(m->ready()) << m->error();
  auto one_row = [&server](float value) {
    InferRequest r;
    r.model = "one_row";
    r.inputs.push_back(Floats("x", {1, 3}, {value, value, value}));
    return server.Infer(r);
  };
  for (int batch = 1; batch <= 4; ++batch) {
    if (batch == 4) {
      // Set once the third batch's requests have run alone, which may be
      // just after they are answered.
      for (int i = 0; i < kWaitMs && m->batches(); ++i) usleep(1000);
    }
    EXPECT_EQ(m->batches(), batch <= 3) << "before batch " << batch;
    auto a = std::async(std::launch::async, one_row, 1.0f);
    InferResponse b = one_row(2.0f);
    for (const InferResponse& r : {a.get(), b}) {
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(r.outputs.at(0).shape, (std::vector<int64_t>{1, 3}));
    }
    EXPECT_EQ(AsFloats(b.outputs[0]), (std::vector<float>{2, 2, 2}));
  }
  EXPECT_EQ(m->Served().max_batch_size, 0);
}

// A BOOL element sent as a byte other than 0 or 1 (binary data, shared
// memory) is true, as any nonzero byte: the kernels read a C++ bool, for
// which another byte is undefined (a cast gave 2 and 255).
TEST(ServerCore, BoolBytesOtherThanZeroAndOneAreTrue) {
  using paddle_lite::framework::DataType;
  BuiltModel model("bools", "", [](paddle_lite::framework::ProgramBuilder& b) {
    auto x = b.AddInput("x", DataType::kBool, {-1, 4});
    auto y = b.AddVar("y");
    b.AddOp("cast", {{"X", {x}}}, {{"Out", {y}}},
            {{"in_dtype", static_cast<int32_t>(DataType::kBool)},
             {"out_dtype", static_cast<int32_t>(DataType::kFloat32)}});
    b.AddOutput(y);
  });
  InferenceServer server(model.repository());
  InferRequest r;
  r.model = "bools";
  TensorData x;
  x.name = "x";
  x.type = paddle_lite::DataType::BOOL;
  x.shape = {2, 4};
  x.bytes = std::string("\x00\x01\x02\xff\x80\x00\x10\x01", 8);
  r.inputs.push_back(x);
  InferResponse answer = server.Infer(r);
  ASSERT_TRUE(answer.status.ok()) << answer.status.message;
  EXPECT_EQ(AsFloats(answer.outputs.at(0)),
            (std::vector<float>{0, 1, 1, 1, 1, 0, 1, 1}));
}

// An output declared with a fixed dim 0 (here a constant [2, 4]) is not
// split by rows, even when a batch's rows match it: the model is not
// batched, and each request gets the whole output.
TEST(ServerCore, AnOutputWithAFixedFirstDimKeepsAModelFromBatching) {
  using paddle_lite::framework::DataType;
  BuiltModel model(
      "fixed", R"({"max_batch_size": 8, "batch_delay_us": 100000})",
      [](paddle_lite::framework::ProgramBuilder& b) {
        auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
        auto y = b.AddVar("y", DataType::kFloat32, {-1, 3});
        b.AddOp("scale", {{"X", {x}}}, {{"Out", {y}}},
                {{"scale", 2.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
        auto c = b.AddVar("c", DataType::kFloat32, {2, 4});
        b.AddOp("fill_constant", {}, {{"Out", {c}}},
                {{"dtype", static_cast<int32_t>(DataType::kFloat32)},
                 {"shape", std::vector<int64_t>{2, 4}},
                 {"value", 1.0f}});
        b.AddOutput(y);
        b.AddOutput(c);
      });
  InferenceServer server(model.repository());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("fixed", "", &m).ok());
  ASSERT_TRUE(m->ready()) << m->error();
  EXPECT_FALSE(m->batches());
  EXPECT_EQ(m->Served().max_batch_size, 0);
  auto one_row = [&server] {
    InferRequest r;
    r.model = "fixed";
    r.inputs.push_back(Floats("x", {1, 3}, {1, 2, 3}));
    return server.Infer(r);
  };
  auto a = std::async(std::launch::async, one_row);
  InferResponse b = one_row();
  for (const InferResponse& r : {a.get(), b}) {
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].shape, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(r.outputs[1].shape, (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(AsFloats(r.outputs[1]), std::vector<float>(8, 1.0f));
  }
}

// Rows of no elements are never joined: dim 0 may then be anything, and
// two such requests' rows would overflow when added.
TEST(ServerCore, RowsOfNoElementsAreNotBatched) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 8, "batch_delay_us": 200000})");
  InferenceServer server(repo.path());
  std::vector<std::future<InferResponse>> answers;
  for (int i = 0; i < 2; ++i) {
    answers.push_back(std::async(std::launch::async, [&server] {
      InferRequest r;
      r.model = "demo";
      r.inputs.push_back(
          Floats("x", {int64_t{1} << 62, 0, 1, 1}, std::vector<float>()));
      return server.Infer(r);
    }));
  }
  // Each runs alone, whatever the model makes of it; the server serves on.
  // (Under UBSan, joining them once overflowed the batch's rows.)
  for (auto& a : answers) a.get();
  EXPECT_EQ(Runs(&server, "demo"), 2);
  // Nor is one of INT64_MAX rows weighed against a batch that forms.
  auto first = FirstOfAWaitingBatch(&server);
  InferRequest most;
  most.model = "demo";
  most.inputs.push_back(Floats("x",
                               {std::numeric_limits<int64_t>::max(), 0, 1, 1},
                               std::vector<float>()));
  auto alone = std::async(std::launch::async,
                          [&server, most] { return server.Infer(most); });
  EXPECT_TRUE(first.get().status.ok());
  alone.get();
  EXPECT_EQ(Runs(&server, "demo"), 4);
  // Dims past 2^64 before the zero: refused, as the runtime refuses them.
  InferRequest huge;
  huge.model = "demo";
  huge.inputs.push_back(
      Floats("x", {int64_t{1} << 62, 3, 32, 0}, std::vector<float>()));
  InferResponse refused = server.Infer(huge);
  EXPECT_EQ(refused.status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status.message.find("non-zero dims multiply past 2^64"),
            std::string::npos)
      << refused.status.message;
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

// Eight requests of 200 rows to "demo" on threads of their own, returned
// once at least four wait in its queue (one instance runs one at a time),
// or all are answered (on a busy machine the threads may start too far
// apart to queue).
std::vector<std::future<InferResponse>> EightRequestsFourQueued(
    InferenceServer* server) {
  std::vector<std::future<InferResponse>> futures;
  for (int i = 0; i < 8; ++i) {
    futures.push_back(std::async(std::launch::async, [server, i] {
      return server->Infer(DemoRequest(200, i));
    }));
  }
  auto all_answered = [&] {
    for (auto& f : futures) {
      if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return false;
      }
    }
    return true;
  };
  std::shared_ptr<const ModelVersion> m;
  if (server->Find("demo", "", &m).ok()) {
    for (int i = 0; i < kWaitMs && m->queued() < 4 && !all_answered(); ++i) {
      usleep(1000);
    }
  }
  return futures;
}

// The answers that succeeded, and those refused with one of `refusals`.
std::pair<int, int> Tally(std::vector<std::future<InferResponse>>* futures,
                          std::initializer_list<StatusCode> refusals) {
  int ok = 0, refused = 0;
  for (auto& f : *futures) {
    InferResponse r = f.get();
    if (r.status.ok()) ++ok;
    for (StatusCode code : refusals) refused += r.status.code == code;
  }
  return {ok, refused};
}

TEST(ServerCore, StopAnswersEveryQueuedRequest) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  auto futures = EightRequestsFourQueued(&server);
  server.Stop();
  // Those queued before Stop() ran (at least the four seen queued); any
  // arriving after it was refused.
  auto [ok, refused] = Tally(
      &futures, {StatusCode::kUnavailable, StatusCode::kResourceExhausted});
  EXPECT_EQ(ok + refused, 8);
  EXPECT_GE(ok, 4);
  EXPECT_EQ(server.Infer(DemoRequest(1, 0)).status.code,
            StatusCode::kUnavailable);
}

// A drain (SIGTERM: BeginShutdown) runs a batch waiting for more requests
// at once rather than after its batch_delay_us (a minute at most, longer
// than the exit timeout), and new requests still run.
TEST(ServerCore, ADrainRunsTheBatchThatWaitsForMore) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"max_batch_size": 8, "batch_delay_us": 30000000})");
  InferenceServer server(repo.path());
  const auto start = std::chrono::steady_clock::now();
  auto waiting = std::async(std::launch::async,
                            [&] { return server.Infer(DemoRequest(1, 0)); });
  // Gathered into the batch that waits.
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  for (int i = 0; i < 500 && m->queued() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(m->queued(), 1u);
  server.BeginShutdown();
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(20)),
            std::future_status::ready);
  EXPECT_TRUE(waiting.get().status.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(server.Infer(DemoRequest(1, 1)).status.ok());
  server.Stop();
}

bool HasExtension(const InferenceServer& server, const std::string& name) {
  for (const std::string& e : server.Extensions()) {
    if (e == name) return true;
  }
  return false;
}

std::string IndexText(const InferenceServer& server, bool ready_only) {
  std::string text;
  for (const RepositoryEntry& e : server.Index(ready_only)) {
    text += e.name + "/" + e.version + "/" + e.state + "/" + e.reason + "\n";
  }
  return text;
}

TEST(ServerCore, LoadAndUnloadAreRefusedWithoutModelControl) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path());
  EXPECT_FALSE(HasExtension(server, "model_repository"));
  for (Status status : {server.Load("demo", ""), server.Unload("demo")}) {
    EXPECT_EQ(status.code, StatusCode::kInvalidArgument);
    EXPECT_NE(status.message.find("--model-control-mode explicit"),
              std::string::npos)
        << status.message;
  }
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

TEST(ServerCore, UnloadAnswersWhatItTookThenTheModelIsNotLoaded) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  EXPECT_TRUE(HasExtension(server, "model_repository"));
  EXPECT_EQ(IndexText(server, false), "demo/1/READY/\n");
  auto futures = EightRequestsFourQueued(&server);
  ASSERT_TRUE(server.Unload("demo").ok());
  // Refused: arrived after the unload (not found), or found the version
  // just as it stopped (unavailable).
  auto [ok, refused] =
      Tally(&futures, {StatusCode::kNotFound, StatusCode::kUnavailable});
  EXPECT_EQ(ok + refused, 8);
  EXPECT_GE(ok, 4);  // at least those seen queued
  InferResponse after = server.Infer(DemoRequest(1, 0));
  EXPECT_EQ(after.status.code, StatusCode::kNotFound);
  EXPECT_NE(after.status.message.find("model 'demo' is not loaded: unloaded"),
            std::string::npos)
      << after.status.message;
  EXPECT_EQ(IndexText(server, false), "demo//UNAVAILABLE/unloaded\n");
  EXPECT_EQ(IndexText(server, true), "");
  // A model not loaded does not make the server unready.
  EXPECT_TRUE(server.Ready());
  EXPECT_EQ(server.Unload("demo").code, StatusCode::kNotFound);
  ASSERT_TRUE(server.Load("demo", "").ok());
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  EXPECT_EQ(IndexText(server, true), "demo/1/READY/\n");
}

TEST(ServerCore, LoadFindsNewVersionsAndKeepsServingWhenTheyFail) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  const std::vector<float> expected =
      AsFloats(server.Infer(DemoRequest(1, 0)).outputs.at(0));

  fs::create_directory_symlink(DemoModelDir(), repo.path() + "/demo/2");
  ASSERT_TRUE(server.Load("demo", "").ok());
  EXPECT_EQ(server.Versions("demo"), (std::vector<std::string>{"1", "2"}));
  InferResponse r = server.Infer(DemoRequest(1, 0));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.version, "2");
  EXPECT_EQ(AsFloats(r.outputs[0]), expected);

  // A broken new version: the load fails, versions 1 and 2 serve on.
  fs::create_directories(repo.path() + "/demo/3");
  std::ofstream(repo.path() + "/demo/3/model.pdmodel") << "not a program";
  Status status = server.Load("demo", "");
  EXPECT_EQ(status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(status.message.find("serves as before: version 3: "),
            std::string::npos)
      << status.message;
  EXPECT_EQ(server.Versions("demo"), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(server.Ready());
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  fs::remove_all(repo.path() + "/demo/3");

  // The config in the request, instead of config.json.
  status = server.Load("demo", R"({"instance": 2})");
  EXPECT_NE(status.message.find("the load request's config: unknown key"),
            std::string::npos)
      << status.message;
  ASSERT_TRUE(server.Load("demo", R"({"max_batch_size": 4})").ok());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  EXPECT_EQ(m->config().max_batch_size, 4);

  // A model folder added since the start: listed, then loaded.
  repo.Add("late", DemoModelDir());
  EXPECT_EQ(IndexText(server, false),
            "demo/1/READY/\ndemo/2/READY/\nlate///\n");
  ASSERT_TRUE(server.Load("late", "").ok());
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0, "late")).status.ok());

  // A new model that fails to load stays out; the server stays ready.
  fs::create_directories(repo.path() + "/broken/1");
  std::ofstream(repo.path() + "/broken/1/model.pdmodel") << "not a program";
  status = server.Load("broken", "");
  EXPECT_EQ(status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(status.message.find("model 'broken' failed to load: version 1: "),
            std::string::npos)
      << status.message;
  EXPECT_TRUE(server.Ready());
  r = server.Infer(DemoRequest(1, 0, "broken"));
  EXPECT_EQ(r.status.code, StatusCode::kNotFound);
  EXPECT_NE(r.status.message.find("its last load failed"), std::string::npos)
      << r.status.message;
  EXPECT_NE(IndexText(server, false)
                .find("broken//UNAVAILABLE/its last load failed: version 1"),
            std::string::npos)
      << IndexText(server, false);

  // Names are one folder of the repository, never a path, and without
  // control bytes (a newline would forge log lines).
  EXPECT_EQ(server.Load("nope", "").code, StatusCode::kNotFound);
  for (const std::string& name :
       {std::string(), std::string("."), std::string(".."),
        std::string("../demo"), std::string("demo/1"), std::string("x\ny"),
        std::string("x\x7f"), std::string("x\0y", 3),
        std::string("bad\xffname"), std::string("cut\xc3")}) {
    status = server.Load(name, "");
    EXPECT_EQ(status.code, StatusCode::kInvalidArgument) << name;
    EXPECT_NE(status.message.find("is not a model name"), std::string::npos)
        << status.message;
  }
  EXPECT_NE(server.Load("x\ny", "").message.find("'x\\x0ay'"),
            std::string::npos);
}

// A folder whose name is not UTF-8 (or holds a control character) names
// no model: it is skipped, and the others serve. Listed, it made every
// gRPC index and statistics answer unreadable (protobuf strings are
// UTF-8), and Prometheus text invalid.
TEST(ServerCore, FoldersWhoseNamesNameNoModelAreSkipped) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  repo.Add("bad\xffname", DemoModelDir());
  repo.Add("x\ny", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  EXPECT_TRUE(server.Ready());
  EXPECT_EQ(IndexText(server, false), "demo/1/READY/\n");
  EXPECT_EQ(server.ModelNames(), std::vector<std::string>{"demo"});
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

TEST(ServerCore, AFailedReloadKeepsTheVersionsThatServe) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  fs::create_directories(repo.path() + "/demo/2");
  std::ofstream(repo.path() + "/demo/2/model.pdmodel") << "not a program";
  InferenceServer server(repo.path(), ExplicitModelControl());
  EXPECT_FALSE(server.Ready());  // version 2 failed at the start
  Status status = server.Load("demo", "");
  EXPECT_EQ(status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(status.message.find("serves as before: version 2: "),
            std::string::npos)
      << status.message;
  InferRequest one = DemoRequest(1, 0);
  one.version = "1";
  EXPECT_TRUE(server.Infer(one).status.ok());
  // A model with no version folder: the reason, with no made-up version.
  fs::create_directories(repo.path() + "/empty");
  status = server.Load("empty", "");
  EXPECT_NE(status.message.find(
                "model 'empty' failed to load: no numbered version folder"),
            std::string::npos)
      << status.message;
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The demo model's files as a load sends them, under each of `versions`.
ModelFiles DemoFiles(std::initializer_list<const char*> versions) {
  ModelFiles files;
  for (const char* v : versions) {
    for (const char* name : {"model.pdmodel", "model.pdiparams"}) {
      files[std::string(v) + "/" + name] =
          FileBytes(DemoModelDir() + "/" + name);
    }
  }
  return files;
}

// Sets $TMPDIR (where a load writes the files it was sent) for one test.
class TemporaryFolderOfTheTest {
 public:
  TemporaryFolderOfTheTest() : dir_("sent_files") {
    setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  ~TemporaryFolderOfTheTest() { unsetenv("TMPDIR"); }
  const std::string& path() const { return dir_.path(); }
  // No folder of sent files is left (the test's other scratch folders may
  // be there too).
  bool Empty() const {
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      if (entry.path().filename().string().rfind("pdlite-load-", 0) == 0) {
        return false;
      }
    }
    return true;
  }

 private:
  paddle_lite::testing::ScratchDir dir_;
};

// Triton's load with "file:" parameters: the model is loaded from the
// files sent, under any name, and they are removed once loaded.
TEST(ServerCore, LoadsAModelFromTheFilesALoadSends) {
  TemporaryFolderOfTheTest temp;
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  const std::vector<float> expected =
      AsFloats(server.Infer(DemoRequest(1, 0)).outputs.at(0));
  ASSERT_TRUE(server.Load("sent", "{}", DemoFiles({"1", "2"})).ok());
  EXPECT_TRUE(temp.Empty());
  EXPECT_EQ(server.Versions("sent"), (std::vector<std::string>{"1", "2"}));
  for (const char* version : {"1", "2"}) {
    InferRequest r = DemoRequest(1, 0, "sent");
    r.version = version;
    InferResponse answer = server.Infer(std::move(r));
    ASSERT_TRUE(answer.status.ok()) << answer.status.message;
    EXPECT_EQ(AsFloats(answer.outputs.at(0)), expected);
  }
  EXPECT_EQ(IndexText(server, true),
            "demo/1/READY/\nsent/1/READY/\nsent/2/READY/\n");
  // A model of the repository reloaded from files serves those versions.
  ASSERT_TRUE(
      server.Load("demo", R"({"instances": 2})", DemoFiles({"3"})).ok());
  EXPECT_EQ(server.Versions("demo"), (std::vector<std::string>{"3"}));
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  // A model that is no folder of the repository leaves nothing behind
  // once unloaded: an unknown model.
  ASSERT_TRUE(server.Unload("sent").ok());
  InferResponse gone = server.Infer(DemoRequest(1, 0, "sent"));
  EXPECT_EQ(gone.status.code, StatusCode::kNotFound);
  EXPECT_EQ(gone.status.message.find("unloaded"), std::string::npos)
      << gone.status.message;
  EXPECT_EQ(IndexText(server, false), "demo/3/READY/\n");
  EXPECT_TRUE(temp.Empty());
}

TEST(ServerCore, AFailedLoadOfSentFilesNamesThemAsSent) {
  TemporaryFolderOfTheTest temp;
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  ModelFiles broken = DemoFiles({"1"});
  broken["1/model.pdmodel"] = "not a program";
  Status failed = server.Load("broken", "{}", broken);
  EXPECT_EQ(failed.code, StatusCode::kInvalidArgument);
  EXPECT_NE(failed.message.find("file:1/model.pdmodel"), std::string::npos)
      << failed.message;
  EXPECT_EQ(failed.message.find(temp.path()), std::string::npos)
      << failed.message;
  // A model that serves serves on when its files fail.
  EXPECT_EQ(server.Load("demo", "{}", broken).code,
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  // A file that is also another's folder.
  Status clash = server.Load("clash", "{}", {{"1/a", "x"}, {"1/a/b", "y"}});
  EXPECT_EQ(clash.code, StatusCode::kInvalidArgument);
  EXPECT_NE(clash.message.find("also a folder of another"), std::string::npos)
      << clash.message;
  EXPECT_EQ(IndexText(server, false), "demo/1/READY/\n");
  EXPECT_TRUE(temp.Empty());
}

// The paths of "file:" parameters cannot leave the folder they are
// written to, and files come with "config", as Triton asks.
TEST(ServerCore, SentFilePathsAreCheckedBeforeAnythingIsWritten) {
  using Kind = RepositoryParameter::Kind;
  auto check = [](std::vector<RepositoryParameter> parameters) {
    std::string config;
    ModelFiles files;
    Status status = CheckRepositoryParameters("m", true, std::move(parameters),
                                              &config, &files);
    return std::make_pair(status, files);
  };
  const RepositoryParameter config{"config", Kind::kString, "{}"};
  for (const char* path :
       {"../x", "1/../x", "1/../../etc/passwd", "/etc/passwd", "1", "1/",
        "model.pdmodel", "1//a", "1/./a", "a/b", "-1/a", "1/a\nb", "01/a"}) {
    auto [status, files] =
        check({config, {std::string("file:") + path, Kind::kBytes, "x"}});
    EXPECT_EQ(status.code, StatusCode::kInvalidArgument) << path;
    EXPECT_NE(status.message.find("\"file:" + std::string(path) + "\""),
              std::string::npos)
        << status.message;
    EXPECT_TRUE(files.empty()) << path;
  }
  auto [long_name, none] =
      check({config, {"file:1/" + std::string(256, 'a'), Kind::kBytes, "x"}});
  EXPECT_NE(long_name.message.find("longer than 255 bytes"), std::string::npos)
      << long_name.message;
  std::string deep = "1";
  while (deep.size() <= kMaxSentPathBytes) deep += "/" + std::string(200, 'd');
  auto [too_deep, none5] = check({config, {"file:" + deep, Kind::kBytes, "x"}});
  EXPECT_NE(too_deep.message.find("longer than 1024 bytes"), std::string::npos)
      << too_deep.message;
  auto [text, none2] = check({config, {"file:1/a", Kind::kString, "x"}});
  EXPECT_NE(text.message.find("must hold the file's bytes"), std::string::npos)
      << text.message;
  auto [no_config, none3] = check({{"file:1/a", Kind::kBytes, "x"}});
  EXPECT_NE(no_config.message.find("needs \"config\" too"), std::string::npos)
      << no_config.message;
  std::vector<RepositoryParameter> many = {config};
  for (size_t i = 0; i <= kMaxSentFiles; ++i) {
    many.push_back({"file:1/f" + std::to_string(i), Kind::kBytes, "x"});
  }
  auto [too_many, none4] = check(many);
  EXPECT_NE(too_many.message.find("at most 1000 files"), std::string::npos)
      << too_many.message;
  auto [ok, files] =
      check({config, {"file:12/sub/model.pdmodel", Kind::kBytes, "bytes"}});
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(files, (ModelFiles{{"12/sub/model.pdmodel", "bytes"}}));
}

// Folders a volume or a tool puts in a repository are not models: they
// would be models never ready, and the server not ready for good.
TEST(ServerCore, HiddenFoldersAndLostFoundAreNotModels) {
  for (const bool polling : {false, true}) {
    SCOPED_TRACE(polling ? "polling" : "loaded at start");
    Repository repo;
    repo.Add("demo", DemoModelDir());
    for (const char* folder :
         {"lost+found", ".git", "..data", "..2026_12_06"}) {
      fs::create_directories(repo.path() + "/" + folder);
    }
    ServerOptions options;
    if (polling) options.repository_poll = std::chrono::hours(1);
    InferenceServer server(repo.path(), options);
    // As Kubernetes updates a ConfigMap: a new hidden folder.
    fs::create_directories(repo.path() + "/..2026_12_07/demo");
    if (polling) server.PollRepository();
    EXPECT_TRUE(server.Ready());
    EXPECT_EQ(server.ModelNames(), std::vector<std::string>{"demo"});
    EXPECT_EQ(IndexText(server, false), "demo/1/READY/\n");
  }
}

TEST(ServerCore, PollingLoadsAddedAndChangedFoldersAndUnloadsRemovedOnes) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  ServerOptions options;
  options.repository_poll = std::chrono::hours(1);  // the test polls
  InferenceServer server(repo.path(), options);
  for (Status status : {server.Load("demo", ""), server.Unload("demo")}) {
    EXPECT_EQ(status.code, StatusCode::kInvalidArgument);
    EXPECT_NE(status.message.find("--model-control-mode poll"),
              std::string::npos)
        << status.message;
  }
  std::shared_ptr<const ModelVersion> before, after;
  ASSERT_TRUE(server.Find("demo", "", &before).ok());
  // Nothing changed: nothing loaded again.
  server.PollRepository();
  ASSERT_TRUE(server.Find("demo", "", &after).ok());
  EXPECT_EQ(before, after);

  // Added, and changed (config.json, and a new version folder). The
  // versions held are let go: a replaced version is stopped once no one
  // holds it (or after a minute).
  before.reset();
  after.reset();
  repo.Add("added", DemoModelDir());
  std::ofstream(repo.path() + "/demo/config.json")
      << R"({"max_batch_size": 4})";
  server.PollRepository();
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0, "added")).status.ok());
  ASSERT_TRUE(server.Find("demo", "", &after).ok());
  EXPECT_EQ(after->config().max_batch_size, 4);
  after.reset();
  fs::create_directory_symlink(DemoModelDir(), repo.path() + "/demo/2");
  server.PollRepository();
  EXPECT_EQ(server.Versions("demo"), (std::vector<std::string>{"1", "2"}));

  // A broken one stays out, is not tried again until it changes, and does
  // not make the server unready.
  fs::create_directories(repo.path() + "/broken/1");
  std::ofstream(repo.path() + "/broken/1/model.pdmodel") << "not a program";
  server.PollRepository();
  EXPECT_TRUE(server.Ready());
  EXPECT_NE(IndexText(server, false)
                .find("broken//UNAVAILABLE/its last load failed: version 1"),
            std::string::npos)
      << IndexText(server, false);
  // A failing version of a model that serves: it serves as before.
  fs::create_directories(repo.path() + "/added/2");
  std::ofstream(repo.path() + "/added/2/model.pdmodel") << "not a program";
  server.PollRepository();
  EXPECT_EQ(server.Versions("added"), std::vector<std::string>{"1"});
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0, "added")).status.ok());

  // Removed: unknown from then on, its metrics gone with it.
  EXPECT_NE(server.metrics().Render().find("model=\"added\""),
            std::string::npos);
  fs::remove_all(repo.path() + "/added");
  fs::remove_all(repo.path() + "/broken");
  server.PollRepository();
  InferResponse gone = server.Infer(DemoRequest(1, 0, "added"));
  EXPECT_EQ(gone.status.code, StatusCode::kNotFound);
  EXPECT_EQ(IndexText(server, false), "demo/1/READY/\ndemo/2/READY/\n");
  EXPECT_EQ(server.metrics().Render().find("model=\"added\""),
            std::string::npos);
}

// Runs of `model`'s only version since it was (re)loaded.
uint64_t Executions(InferenceServer* server, const std::string& model) {
  std::vector<VersionStatistics> stats;
  if (!server->Statistics(model, "", &stats).ok() || stats.empty()) return ~0u;
  return stats[0].execution_count;
}

// A labels file config.json names is part of what polling watches: one
// that comes after config.json, or changes, loads the model again.
TEST(ServerCore, PollingWatchesTheLabelsFiles) {
  Repository repo;
  repo.Add("demo", DemoModelDir(),
           R"({"labels": {"softmax.tmp_0": "labels.txt"}})");
  ServerOptions options;
  options.repository_poll = std::chrono::hours(1);  // the test polls
  InferenceServer server(repo.path(), options);
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("demo", "", &m).ok());
  EXPECT_FALSE(m->ready());
  auto top = [&] {
    InferRequest r = DemoRequest(1, 0);
    r.classification["softmax.tmp_0"] = 1;
    InferResponse answer = server.Infer(r);
    std::vector<std::string_view> classes;
    if (!answer.status.ok() || answer.outputs.size() != 1 ||
        !SplitBytesElements(answer.outputs[0].bytes, &classes) ||
        classes.size() != 1) {
      return answer.status.message;
    }
    return std::string(classes[0].substr(classes[0].rfind(':') + 1));
  };
  std::string labels;
  for (int i = 0; i < 10; ++i) labels += "a" + std::to_string(i) + "\n";
  std::ofstream(repo.path() + "/demo/labels.txt") << labels;
  m.reset();
  server.PollRepository();
  const std::string first = top();
  ASSERT_EQ(first.size(), 2u) << first;
  EXPECT_EQ(first[0], 'a');
  // The same size, so that only its contents and times differ.
  for (char& c : labels) c = c == 'a' ? 'b' : c;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(repo.path() + "/demo/labels.txt") << labels;
  server.PollRepository();
  EXPECT_EQ(top(), "b" + first.substr(1));
}

TEST(ServerCore, PollingSeesSymlinksPointedElsewhereAndFoldersEmptied) {
  Repository repo;
  paddle_lite::testing::ScratchDir elsewhere("serve_poll_targets");
  fs::create_directories(elsewhere.path() + "/a");
  fs::create_directories(elsewhere.path() + "/b");
  // A version folder of its own: a symlink to each of the model's files,
  // and one to a folder the loader does not read.
  const std::string version = repo.path() + "/nested/1";
  fs::create_directories(version);
  for (const auto& file : fs::directory_iterator(DemoModelDir())) {
    fs::create_symlink(file.path(),
                       version + "/" + file.path().filename().string());
  }
  fs::create_directory_symlink(elsewhere.path() + "/a", version + "/extra");
  ServerOptions options;
  options.repository_poll = std::chrono::hours(1);  // the test polls
  InferenceServer server(repo.path(), options);
  ASSERT_TRUE(server.Infer(DemoRequest(1, 0, "nested")).status.ok());
  EXPECT_EQ(Executions(&server, "nested"), 1u);
  server.PollRepository();  // nothing changed: not loaded again
  EXPECT_EQ(Executions(&server, "nested"), 1u);
  // The same names, pointing elsewhere: loaded again (statistics restart).
  fs::remove(version + "/extra");
  fs::create_directory_symlink(elsewhere.path() + "/b", version + "/extra");
  server.PollRepository();
  EXPECT_EQ(Executions(&server, "nested"), 0u);
  // A file in a folder reached through a symlink: a change too.
  ASSERT_TRUE(server.Infer(DemoRequest(1, 0, "nested")).status.ok());
  std::ofstream(elsewhere.path() + "/b/notes.txt") << "retrained";
  server.PollRepository();
  EXPECT_EQ(Executions(&server, "nested"), 0u);
  // No version folder left: unloaded, the reason in the index.
  fs::remove_all(version);
  server.PollRepository();
  EXPECT_EQ(server.Infer(DemoRequest(1, 0, "nested")).status.code,
            StatusCode::kNotFound);
  EXPECT_NE(IndexText(server, false)
                .find("nested//UNAVAILABLE/no numbered version folder in"),
            std::string::npos)
      << IndexText(server, false);
  EXPECT_TRUE(server.Ready());
}

TEST(ServerCore, ThePollingThreadFindsAFolderAndStopsWithTheServer) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  ServerOptions options;
  options.repository_poll = std::chrono::milliseconds(20);
  auto server = std::make_unique<InferenceServer>(repo.path(), options);
  repo.Add("late", DemoModelDir());
  bool found = false;
  for (int waited = 0; waited < kWaitMs && !found; waited += 5) {
    std::shared_ptr<const ModelVersion> m;
    found = server->Find("late", "", &m).ok();
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(server->Infer(DemoRequest(1, 0, "late")).status.ok());
  const auto start = std::chrono::steady_clock::now();
  server.reset();  // Stop joins the polling thread
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// An unload waits for requests still handing themselves to the version
// (here: a holder that never lets go). Meanwhile other models load and
// unload, and a shutdown cuts the wait short rather than waiting out
// kRetireWait.
TEST(ServerCore, AnUnloadWaitingOnAHeldVersionHoldsUpNeitherLoadsNorStop) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  repo.Add("other", DemoModelDir());
  auto server =
      std::make_unique<InferenceServer>(repo.path(), ExplicitModelControl());
  std::shared_ptr<const ModelVersion> held;
  ASSERT_TRUE(server->Find("demo", "", &held).ok());
  auto unload =
      std::async(std::launch::async, [&] { return server->Unload("demo"); });
  // Taken out of the repository at once, though not yet stopped.
  for (int waited = 0; waited < kWaitMs; waited += 5) {
    std::shared_ptr<const ModelVersion> m;
    if (!server->Find("demo", "", &m).ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(unload.wait_for(std::chrono::milliseconds(100)),
            std::future_status::timeout);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(server->Unload("other").ok());
  EXPECT_TRUE(server->Load("other", "").ok());
  EXPECT_TRUE(server->Infer(DemoRequest(1, 0, "other")).status.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(server->Ready());
  server->BeginShutdown();
  EXPECT_FALSE(server->Ready());
  ASSERT_EQ(unload.wait_for(std::chrono::seconds(10)),
            std::future_status::ready);
  EXPECT_TRUE(unload.get().ok());
  EXPECT_EQ(server->Load("other", "").code, StatusCode::kUnavailable);
  server->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// A front end looks the model up before it decodes a request (to answer
// NotFound first) and runs the request on what it found: an unload or a
// reload meanwhile waits for it, and it gets the model's answer, not
// NotFound. Requests that look the model up after the unload are refused.
TEST(ServerCore, ARequestRunsOnTheVersionItFoundThoughAnUnloadTakesItAway) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  const std::vector<float> expected =
      AsFloats(server.Infer(DemoRequest(1, 0)).outputs.at(0));
  for (const bool reload : {false, true}) {
    SCOPED_TRACE(reload ? "reload" : "unload");
    std::shared_ptr<ModelVersion> found;
    ASSERT_TRUE(server.FindToRun("demo", "", &found).ok());
    auto change = std::async(std::launch::async, [&] {
      return reload ? server.Load("demo", "") : server.Unload("demo");
    });
    // Wait until the version found is out of the repository.
    for (int waited = 0; waited < kWaitMs; waited += 5) {
      std::shared_ptr<const ModelVersion> now;
      if (!server.Find("demo", "", &now).ok() || now != found) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(change.wait_for(std::chrono::milliseconds(50)),
              std::future_status::timeout);
    InferResponse answer = server.Infer(DemoRequest(1, 0), std::move(found));
    ASSERT_TRUE(answer.status.ok()) << answer.status.message;
    EXPECT_EQ(AsFloats(answer.outputs.at(0)), expected);
    ASSERT_EQ(change.wait_for(std::chrono::seconds(30)),
              std::future_status::ready);
    EXPECT_TRUE(change.get().ok());
    InferResponse after = server.Infer(DemoRequest(1, 0));
    EXPECT_EQ(after.status.code,
              reload ? StatusCode::kOk : StatusCode::kNotFound);
    if (!reload) {
      ASSERT_TRUE(server.Load("demo", "").ok());
    }
  }
}

// A version still held when its unload gives up waiting keeps its metrics
// series while held (its requests still count), and loses them once
// released, at the next scrape: /metrics does not keep them for good.
TEST(ServerCore, AVersionUnloadedWhileHeldLosesItsMetricsOnceReleased) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  ServerOptions options = ExplicitModelControl();
  options.retire_wait = std::chrono::milliseconds(100);
  InferenceServer server(repo.path(), options);
  const std::string series = "model=\"demo\",version=\"1\"";
  ASSERT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  std::shared_ptr<ModelVersion> held;
  ASSERT_TRUE(server.FindToRun("demo", "", &held).ok());
  ASSERT_TRUE(server.Unload("demo").ok());  // gives up after 100 ms
  // The holder's request is refused, saying why (nothing shuts down).
  InferResponse refused;
  held->InferAsync(DemoRequest(1, 0),
                   [&](InferResponse r) { refused = std::move(r); });
  EXPECT_EQ(refused.status.code, StatusCode::kUnavailable);
  EXPECT_NE(refused.status.message.find(
                "model 'demo' version 1: stopped (unloaded, or"),
            std::string::npos)
      << refused.status.message;
  EXPECT_NE(server.RenderMetrics().find(series), std::string::npos);
  held.reset();
  EXPECT_EQ(server.RenderMetrics().find(series), std::string::npos)
      << server.RenderMetrics();
  // Loaded again before the release: the new version's series stay.
  ASSERT_TRUE(server.Load("demo", "").ok());
  ASSERT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  ASSERT_TRUE(server.FindToRun("demo", "", &held).ok());
  ASSERT_TRUE(server.Unload("demo").ok());
  ASSERT_TRUE(server.Load("demo", "").ok());
  ASSERT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  held.reset();
  EXPECT_NE(server.RenderMetrics().find(series), std::string::npos);
}

// Reloads while a request holds the copy being replaced: a second reload
// waits until that copy is released before it loads another, so that a
// model never has more than one copy serving and one retiring.
TEST(ServerCore, AModelIsNotLoadedAgainWhileItsLastCopyRetires) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  std::shared_ptr<const ModelVersion> held;
  ASSERT_TRUE(server.Find("demo", "", &held).ok());
  auto reload =
      std::async(std::launch::async, [&] { return server.Load("demo", ""); });
  // The new copy serves at once; the held one waits to be retired.
  std::shared_ptr<const ModelVersion> second;
  for (int waited = 0; waited < kWaitMs; waited += 5) {
    if (server.Find("demo", "", &second).ok() && second != held) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NE(second, held);
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  auto again =
      std::async(std::launch::async, [&] { return server.Load("demo", ""); });
  EXPECT_EQ(again.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  // No third copy meanwhile: the second still serves, and answers.
  std::shared_ptr<const ModelVersion> now;
  ASSERT_TRUE(server.Find("demo", "", &now).ok());
  EXPECT_EQ(now, second);
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
  now.reset();
  second.reset();
  held.reset();
  ASSERT_EQ(reload.wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  EXPECT_TRUE(reload.get().ok());
  ASSERT_EQ(again.wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  EXPECT_TRUE(again.get().ok());
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

// Clients keep sending while the model is unloaded and loaded again:
// each answer is the model's, or "not found" while it is unloaded; never
// a crash, a wrong answer, or a refusal by a version being replaced (and
// under ThreadSanitizer, no race).
TEST(ServerCore, RequestsDuringLoadsAndUnloadsAreAnsweredOrRefused) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  InferenceServer server(repo.path(), ExplicitModelControl());
  const std::vector<float> expected =
      AsFloats(server.Infer(DemoRequest(1, 0)).outputs.at(0));
  std::atomic<bool> done{false};
  std::vector<std::future<std::tuple<int, int, int>>> clients;
  for (int c = 0; c < 4; ++c) {
    clients.push_back(std::async(std::launch::async, [&] {
      int ok = 0, refused = 0, wrong = 0;
      while (!done) {
        InferResponse r = server.Infer(DemoRequest(1, 0));
        if (r.status.ok()) {
          ++ok;
          if (AsFloats(r.outputs.at(0)) != expected) ++wrong;
        } else if (r.status.code == StatusCode::kNotFound) {
          ++refused;  // while unloaded; a reload refuses nothing
        } else {
          ++wrong;
        }
      }
      return std::make_tuple(ok, refused, wrong);
    }));
  }
  for (int round = 0; round < 4; ++round) {
    EXPECT_TRUE(server.Unload("demo").ok());
    EXPECT_TRUE(server.Load("demo", "").ok());
    EXPECT_TRUE(server.Load("demo", R"({"instances": 2})").ok());
  }
  done = true;
  int ok = 0;
  for (auto& c : clients) {
    auto [answered, refused, wrong] = c.get();
    EXPECT_EQ(wrong, 0);
    ok += answered;
  }
  EXPECT_GT(ok, 0);
  EXPECT_TRUE(server.Infer(DemoRequest(1, 0)).status.ok());
}

TEST(ServerCore, StatisticsCountRequestsRunsAndRows) {
  Repository repo;
  repo.Add("demo", DemoModelDir());
  repo.Add("batched", DemoModelDir(),
           R"({"max_batch_size": 8, "batch_delay_us": 300000})");
  InferenceServer server(repo.path());
  for (int rows : {1, 2, 1}) {
    ASSERT_TRUE(server.Infer(DemoRequest(rows, 0)).status.ok());
  }
  InferRequest bad = DemoRequest(1, 0);
  bad.inputs[0].name = "y";
  EXPECT_FALSE(server.Infer(bad).status.ok());

  std::vector<VersionStatistics> stats;
  ASSERT_TRUE(server.Statistics("demo", "", &stats).ok());
  ASSERT_EQ(stats.size(), 1u);
  const VersionStatistics& demo = stats[0];
  EXPECT_EQ(demo.name, "demo");
  EXPECT_EQ(demo.version, "1");
  // Without batching, a request counts once whatever its rows.
  EXPECT_EQ(demo.inference_count, 3u);
  EXPECT_EQ(demo.execution_count, 3u);
  EXPECT_EQ(demo.success.count, 3u);
  EXPECT_EQ(demo.fail.count, 1u);
  EXPECT_EQ(demo.queue.count, 3u);
  EXPECT_EQ(demo.compute_infer.count, 3u);
  EXPECT_GT(demo.compute_infer.ns, 0u);
  EXPECT_GE(demo.success.ns, demo.queue.ns + demo.compute_input.ns +
                                 demo.compute_infer.ns +
                                 demo.compute_output.ns);
  ASSERT_EQ(demo.batches.size(), 1u);
  EXPECT_EQ(demo.batches[0].batch_size, 1);
  EXPECT_EQ(demo.batches[0].compute_infer.count, 3u);
  const uint64_t now_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  EXPECT_LE(demo.last_inference_ms, now_ms);
  EXPECT_GT(demo.last_inference_ms + 60000, now_ms);

  // Batched: rows count, and each run counts once at its batch size.
  std::vector<std::future<InferResponse>> futures;
  for (int rows : {1, 2, 1, 2}) {
    futures.push_back(std::async(std::launch::async, [&server, rows] {
      return server.Infer(DemoRequest(rows, 0, "batched"));
    }));
  }
  for (auto& f : futures) ASSERT_TRUE(f.get().status.ok());
  ASSERT_TRUE(server.Statistics("batched", "1", &stats).ok());
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].inference_count, 6u);
  EXPECT_EQ(stats[0].success.count, 4u);
  uint64_t runs = 0, rows = 0;
  for (const BatchStat& b : stats[0].batches) {
    runs += b.compute_infer.count;
    rows += b.compute_infer.count * static_cast<uint64_t>(b.batch_size);
  }
  EXPECT_EQ(runs, stats[0].execution_count);
  EXPECT_EQ(rows, 6u);

  ASSERT_TRUE(server.Statistics("", "", &stats).ok());
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "batched");
  EXPECT_EQ(stats[1].name, "demo");
  EXPECT_EQ(server.Statistics("nope", "", &stats).code, StatusCode::kNotFound);
  EXPECT_EQ(server.Statistics("", "1", &stats).code,
            StatusCode::kInvalidArgument);
  EXPECT_EQ(server.Statistics("demo", "2", &stats).code, StatusCode::kNotFound);
}

TEST(ServerCore, LoDModelMatchesReference) {
  const std::string dir = kModels + "/textcnn_news_fluid";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " not present";
  Repository repo;
  repo.Add("textcnn", dir, R"({"max_batch_size": 8, "batch_delay_us": 1000})");
  InferenceServer server(repo.path());
  std::shared_ptr<const ModelVersion> m;
  ASSERT_TRUE(server.Find("textcnn", "", &m).ok());
  ASSERT_TRUE(m->ready()) << m->error();
  ASSERT_EQ(m->inputs().size(), 1u);
  EXPECT_GT(m->inputs()[0].lod_level, 0);
  auto words = paddle_lite::framework::ReadNpy(dir + "/ref/input_words.npy");
  InferRequest r;
  r.model = "textcnn";
  TensorData t;
  t.name = m->inputs()[0].name;
  t.type = DataType::INT64;
  t.shape = words.dims();
  t.bytes.assign(reinterpret_cast<const char*>(words.data<int64_t>()),
                 words.numel() * sizeof(int64_t));
  t.lod = {{0, 30, 59, 89, 100, 121, 153, 181, 200, 230, 262}};
  r.inputs.push_back(t);
  InferRequest no_lod = r;
  no_lod.inputs[0].lod.clear();
  EXPECT_EQ(server.Infer(no_lod).status.code, StatusCode::kInvalidArgument);
  InferRequest bad_lod = r;
  bad_lod.inputs[0].lod = {{0, 30, 500}};
  EXPECT_EQ(server.Infer(bad_lod).status.code, StatusCode::kInvalidArgument);
  auto expected =
      paddle_lite::framework::ReadNpy(dir + "/ref/expected_fc_0.tmp_4.npy");
  // Twice at once: LoD requests are never batched, each must match.
  auto a = std::async(std::launch::async, [&] { return server.Infer(r); });
  InferResponse b = server.Infer(r);
  for (InferResponse response : {a.get(), b}) {
    ASSERT_TRUE(response.status.ok()) << response.status.message;
    auto got = AsFloats(response.outputs[0]);
    ASSERT_EQ(got.size(), static_cast<size_t>(expected.numel()));
    for (size_t i = 0; i < got.size(); ++i) {
      float e = expected.data<float>()[i];
      EXPECT_NEAR(got[i], e, 1e-4 + 1e-3 * std::abs(e));
    }
  }
  // A model that does not batch (its configured max_batch_size aside)
  // counts a request once, as Triton does, not by its first dimension
  // (262 words).
  std::vector<VersionStatistics> stats;
  ASSERT_TRUE(server.Statistics("textcnn", "", &stats).ok());
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].inference_count, 2u);
  ASSERT_EQ(stats[0].batches.size(), 1u);
  EXPECT_EQ(stats[0].batches[0].batch_size, 1);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
