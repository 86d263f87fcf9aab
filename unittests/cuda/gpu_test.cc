// The CUDA place through the public API. Cases needing a GPU skip (with
// the reason) on machines without one; ctest reports them as skipped.
// Run them all with scripts/test_gpu.sh.
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "framework/npy.h"
#include "framework/plugin.h"
#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "paddle_lite/paddle_lite.h"
#include "platform/allocator.h"
#include "platform/place.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/op_tester.h"
#include "unittests/test_utils/scratch_dir.h"

namespace paddle_lite {
namespace {

const std::string kCls =
    std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
const std::string kDet =
    std::string(PDLITE_SHARED_DIR) + "/models/ppocr_det_ch_v3";

// A predictor on cuda:0, or nullptr (and the test skipped) without a GPU.
std::unique_ptr<Predictor> GpuPredictor(Config config) {
  config.SetDevice("cuda:0");
  try {
    return CreatePredictor(config);
  } catch (const Exception& e) {
    if (e.code() == ErrorCode::kUnavailable) return nullptr;
    throw;
  }
}

#define SKIP_WITHOUT_GPU(p)                                        \
  do {                                                             \
    if (!(p)) {                                                    \
      GTEST_SKIP() << "no CUDA device on this machine (cuda:0 is " \
                      "Unavailable)";                              \
    }                                                              \
  } while (0)

std::vector<float> RunOnce(Predictor* p, const framework::Tensor& x) {
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape(x.dims());
  in->CopyFromCpu(x.data<float>());
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  std::vector<float> result(framework::Product(framework::DDim(out->shape())));
  out->CopyToCpu(result.data());
  return result;
}

std::vector<float> CpuResult(const std::string& model,
                             const framework::Tensor& x) {
  auto p = CreatePredictor(Config(model));
  return RunOnce(p.get(), x);
}

void ExpectClose(const std::vector<float>& got,
                 const std::vector<float>& want,
                 float atol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], atol + 1e-3f * std::fabs(want[i]))
        << "element " << i;
  }
}

// Needs no GPU: a device id that cannot exist is a clear error at
// CreatePredictor, whether the machine has GPUs or none.
TEST(CudaPlace, MissingDeviceIsAClearError) {
  Config config(testing::DemoModelDir());
  config.SetDevice("cuda:99");
  try {
    CreatePredictor(config);
    FAIL() << "cuda:99 was accepted";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnavailable) << e.what();
    EXPECT_NE(e.message().find("no CUDA device"), std::string::npos)
        << e.what();
  }
}

TEST(CudaPlace, DemoMatchesTheCpu) {
  auto p = GpuPredictor(Config(testing::DemoModelDir()));
  SKIP_WITHOUT_GPU(p);
  framework::Tensor x =
      framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
  ExpectClose(RunOnce(p.get(), x), CpuResult(testing::DemoModelDir(), x),
              1e-4f);
  // Every op of the demo has a CUDA kernel: nothing runs on the CPU.
  for (auto& op : p->GetOpPlacement()) {
    if (!op.place.empty()) {
      EXPECT_EQ(op.place, "cuda:0") << op.type;
    }
  }
}

TEST(CudaPlace, ClonesRunInParallel) {
  auto p = GpuPredictor(Config(kCls));
  SKIP_WITHOUT_GPU(p);
  framework::Tensor x = framework::ReadNpy(kCls + "/ref/input_x.npy");
  const std::vector<float> want = CpuResult(kCls, x);
  std::vector<std::unique_ptr<Predictor>> clones;
  for (int i = 0; i < 4; ++i) clones.push_back(p->Clone());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (auto& clone : clones) {
    threads.emplace_back([&, c = clone.get()] {
      for (int run = 0; run < 25; ++run) {
        std::vector<float> got = RunOnce(c, x);
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::fabs(got[i] - want[i]) > 1e-4f) {
            ++mismatches;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(CudaPlace, MemoryLimitIsAnError) {
  Config config(kCls);
  config.SetGpuMemoryLimit(64 << 10);  // far below the weights
  std::unique_ptr<Predictor> p;
  try {
    p = GpuPredictor(config);
  } catch (const Exception& e) {
    // Allocating at creation is also a fine place to refuse.
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    return;
  }
  SKIP_WITHOUT_GPU(p);
  framework::Tensor x = framework::ReadNpy(kCls + "/ref/input_x.npy");
  try {
    RunOnce(p.get(), x);
    FAIL() << "a run within a 64 KiB device limit succeeded";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    EXPECT_NE(e.message().find("device memory limit"), std::string::npos)
        << e.what();
  }
}

TEST(CudaPlace, ZeroCopyDeviceInputAndOutput) {
  auto p = GpuPredictor(Config(testing::DemoModelDir()));
  SKIP_WITHOUT_GPU(p);
  framework::Tensor x =
      framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
  const std::vector<float> want = CpuResult(testing::DemoModelDir(), x);
  // Device memory the caller owns, filled with the input.
  const platform::Place gpu = platform::CUDAPlace{0};
  auto buffer = platform::GetAllocator(gpu)->Allocate(x.memory_size());
  platform::Memcpy(gpu, buffer->ptr(), platform::CPUPlace{}, x.raw_data(),
                   x.memory_size());
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->ShareExternalData(static_cast<const float*>(buffer->ptr()), x.dims(),
                        PlaceType::kGPU);
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  int64_t n = 0;
  const float* device_result = out->data<float>(PlaceType::kGPU, &n);
  ASSERT_EQ(static_cast<size_t>(n), want.size());
  std::vector<float> got(n);
  platform::Memcpy(platform::CPUPlace{}, got.data(), gpu, device_result,
                   n * sizeof(float));
  ExpectClose(got, want, 1e-4f);
}

// An output that is a view of a device input (a program fetching its
// input reshaped) outlives the caller's buffer: it had kept pointing into
// it, so a changed or freed buffer changed the output.
TEST(CudaPlace, DeviceOutputViewingTheInputOutlivesIt) {
  testing::ScratchDir dir("gpu_input_view");
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 4});
  b.AddVar("y");
  b.AddVar("y_shape");
  b.AddOp("reshape2", {{"X", {x}}}, {{"Out", {"y"}}, {"XShape", {"y_shape"}}},
          {{"shape", std::vector<int>{-1}}});
  b.AddOutput("y");
  b.Save(dir.path() + "/viewed");
  auto p = GpuPredictor(
      Config(dir.path() + "/viewed.pdmodel", dir.path() + "/viewed.pdiparams"));
  SKIP_WITHOUT_GPU(p);
  const std::vector<float> given = {-1, 2, -3, 4, 5, -6, 7, -8};
  const size_t bytes = given.size() * sizeof(float);
  const platform::Place gpu = platform::CUDAPlace{0};
  auto buffer = platform::GetAllocator(gpu)->Allocate(bytes);
  platform::Memcpy(gpu, buffer->ptr(), platform::CPUPlace{}, given.data(),
                   bytes);
  auto in = p->GetInputHandle("x");
  in->ShareExternalData(static_cast<const float*>(buffer->ptr()), {2, 4},
                        PlaceType::kGPU);
  p->Run();
  const std::vector<float> changed(given.size(), 99.f);
  platform::Memcpy(gpu, buffer->ptr(), platform::CPUPlace{}, changed.data(),
                   bytes);
  auto out = p->GetOutputHandle("y");
  std::vector<float> got(given.size());
  ASSERT_EQ(framework::Product(framework::DDim(out->shape())),
            static_cast<int64_t>(got.size()));
  out->CopyToCpu(got.data());
  EXPECT_EQ(got, given) << "the output read the caller's device buffer";
  buffer.reset();
  out->CopyToCpu(got.data());
  EXPECT_EQ(got, given) << "after the caller's buffer was freed";
}

// A captured graph reads each run's device input: the caller's device
// buffers change between runs (ShareExternalData), and inputs move from
// the host to the device and back. The graph had kept reading the buffer
// it was captured with.
TEST(CudaPlace, GraphReplaysReadEachRunsDeviceInput) {
  auto p = GpuPredictor(Config(testing::DemoModelDir()));
  SKIP_WITHOUT_GPU(p);
  framework::Tensor x =
      framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
  framework::Tensor doubled;
  doubled.Resize(x.dims());
  float* twice_x = doubled.mutable_data<float>(platform::CPUPlace{});
  for (int64_t i = 0; i < x.numel(); ++i) twice_x[i] = 2.f * x.data<float>()[i];
  const std::vector<float> want_x = CpuResult(testing::DemoModelDir(), x);
  const std::vector<float> want_doubled =
      CpuResult(testing::DemoModelDir(), doubled);
  const platform::Place gpu = platform::CUDAPlace{0};
  auto on_device = [&gpu](const framework::Tensor& t) {
    auto buffer = platform::GetAllocator(gpu)->Allocate(t.memory_size());
    platform::Memcpy(gpu, buffer->ptr(), platform::CPUPlace{}, t.raw_data(),
                     t.memory_size());
    return buffer;
  };
  auto x_buffer = on_device(x);
  auto doubled_buffer = on_device(doubled);
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  for (int run = 0; run < 8; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const bool twice = run % 2 == 1;
    if (run == 5) {  // from the host, once
      in->Reshape(x.dims());
      in->CopyFromCpu(x.data<float>());
    } else {
      in->ShareExternalData(
          static_cast<const float*>((twice ? doubled_buffer : x_buffer)->ptr()),
          x.dims(), PlaceType::kGPU);
    }
    p->Run();
    auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
    std::vector<float> got(framework::Product(framework::DDim(out->shape())));
    out->CopyToCpu(got.data());
    ExpectClose(got, twice && run != 5 ? want_doubled : want_x, 1e-4f);
    if (run >= 3) {
      const RunStats stats = p->last_run_stats();
      EXPECT_TRUE(stats.graph_replayed) << stats.graph_refusal;
    }
  }
}

TEST(CudaPlace, CudaGraphReplayEqualsEager) {
  Config eager_config(kCls);
  eager_config.EnableCudaGraph(false);
  auto eager = GpuPredictor(eager_config);
  SKIP_WITHOUT_GPU(eager);
  auto graph = GpuPredictor(Config(kCls));
  framework::Tensor x = framework::ReadNpy(kCls + "/ref/input_x.npy");
  const std::vector<float> want = RunOnce(eager.get(), x);
  EXPECT_FALSE(eager->last_run_stats().graph_replayed);
  // Recording run, first replay (op by op), capture, then launches.
  for (int run = 0; run < 5; ++run) {
    std::vector<float> got = RunOnce(graph.get(), x);
    ExpectClose(got, want, 1e-5f);
    const RunStats stats = graph->last_run_stats();
    if (run >= 2) {
      EXPECT_TRUE(stats.graph_replayed)
          << "run " << run << ": " << stats.graph_refusal;
    }
  }
}

// A stream of input sizes in one predictor: new sizes of each layer take
// the algorithms chosen for its earlier sizes (conv_util.h), sizes come
// back (plan replay, then CUDA-graph capture and launches), and every run
// matches the CPU.
TEST(CudaPlace, ShapeStreamMatchesTheCpu) {
  auto gpu = GpuPredictor(Config(kDet));
  SKIP_WITHOUT_GPU(gpu);
  auto cpu = CreatePredictor(Config(kDet));
  const std::vector<std::pair<int64_t, int64_t>> sizes = {
      {96, 160}, {160, 96}, {128, 224}, {96, 160}, {224, 128},
      {160, 96}, {96, 160}, {128, 224}, {96, 160}};
  uint32_t seed = 1;
  for (const auto& hw : sizes) {
    SCOPED_TRACE("1x3x" + std::to_string(hw.first) + "x" +
                 std::to_string(hw.second));
    framework::Tensor x =
        testing::RandomTensor<float>({1, 3, hw.first, hw.second}, 0, 1, seed++);
    ExpectClose(RunOnce(gpu.get(), x), RunOnce(cpu.get(), x), 1e-4f);
  }
  EXPECT_TRUE(gpu->last_run_stats().graph_replayed)
      << gpu->last_run_stats().graph_refusal;
}

}  // namespace
}  // namespace paddle_lite
