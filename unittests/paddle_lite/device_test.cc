// A predictor on a plugin device (the emulated device of
// examples/emulated_device, built in the tree as pdlite_test_emu): ops with
// a kernel there run there, the rest on the CPU; the copies between them
// are reported with their bytes, weights are copied once; results match
// the CPU; clones work; a device nobody provides is an error.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/npy.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace {

std::vector<float> RunDemo(Predictor* p) {
  framework::Tensor x =
      framework::ReadNpy(testing::DemoModelDir() + "/input_x.npy");
  auto in = p->GetInputHandle("x");
  in->Reshape(x.dims());
  in->CopyFromCpu(x.data<float>());
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  int64_t n = 0;
  const float* data = out->data<float>(&n);
  return std::vector<float>(data, data + n);
}

void ExpectClose(const std::vector<float>& got,
                 const std::vector<float>& want,
                 float tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tolerance) << "element " << i;
  }
}

Config EmuConfig() {
  Config config(testing::DemoModelDir());
  config.LoadPlugin(PDLITE_TEST_EMU_PLUGIN);
  config.SetDevice("emu:0");
  config.SwitchIrOptim(false);  // keep the saved ops (fused ones are CPU-only)
  return config;
}

std::vector<float> CpuResult() {
  Config config(testing::DemoModelDir());
  config.SwitchIrOptim(false);
  auto p = CreatePredictor(config);
  return RunDemo(p.get());
}

TEST(Device, OpsRunWhereTheyHaveAKernel) {
  auto p = CreatePredictor(EmuConfig());
  const std::set<std::string> on_emu = {"conv2d", "relu", "pool2d",
                                        "elementwise_add"};
  int emu_ops = 0;
  for (auto& op : p->GetOpPlacement()) {
    if (op.type == "feed" || op.type == "fetch") {
      EXPECT_EQ(op.place, "") << op.type;
      continue;
    }
    EXPECT_EQ(op.place, on_emu.count(op.type) ? "emu:0" : "cpu")
        << "#" << op.index << " " << op.type << ": " << op.reason;
    EXPECT_EQ(op.library, "PLAIN") << op.type;
    emu_ops += op.place == "emu:0";
  }
  EXPECT_EQ(emu_ops, 8);
  ExpectClose(RunDemo(p.get()), CpuResult(), 1e-5f);
}

TEST(Device, CopiesAreReportedWithBytesAndWeightsCopiedOnce) {
  auto p = CreatePredictor(EmuConfig());
  RunDemo(p.get());
  auto first = p->last_run_stats().copies;
  ASSERT_FALSE(first.empty());
  std::map<std::string, CopyRecord> by_var;
  for (auto& c : first) {
    EXPECT_FALSE(c.cached) << c.var;
    EXPECT_TRUE((c.from == "cpu" && c.to == "emu:0") ||
                (c.from == "emu:0" && c.to == "cpu"))
        << c.var << ": " << c.from << " -> " << c.to;
    by_var[c.var] = c;
  }
  // The input [2, 3, 32, 32] float goes to the first conv2d on the device,
  // its 3x3 filter [8, 3, 3, 3] with it; batch_norm reads the conv's
  // output back on the CPU.
  ASSERT_TRUE(by_var.count("x"));
  EXPECT_EQ(by_var["x"].op_type, "conv2d");
  EXPECT_EQ(by_var["x"].bytes, 2u * 3 * 32 * 32 * sizeof(float));
  ASSERT_TRUE(by_var.count("conv1.w_0"));
  EXPECT_EQ(by_var["conv1.w_0"].bytes, 8u * 3 * 3 * 3 * sizeof(float));
  ASSERT_TRUE(by_var.count("conv1.tmp_0"));
  EXPECT_EQ(by_var["conv1.tmp_0"].op_type, "batch_norm");
  EXPECT_EQ(by_var["conv1.tmp_0"].from, "emu:0");

  RunDemo(p.get());
  auto second = p->last_run_stats().copies;
  ASSERT_EQ(second.size(), first.size());
  for (auto& c : second) {
    bool weight = c.var.find(".w_") != std::string::npos ||
                  c.var.find(".b_") != std::string::npos;
    EXPECT_EQ(c.cached, weight) << c.var;
  }
}

TEST(Device, ClonesRunOnTheDeviceToo) {
  auto p = CreatePredictor(EmuConfig());
  auto clone = p->Clone();
  std::vector<std::string> a, b;
  for (auto& op : p->GetOpPlacement()) a.push_back(op.place);
  for (auto& op : clone->GetOpPlacement()) b.push_back(op.place);
  EXPECT_EQ(a, b);
  ExpectClose(RunDemo(clone.get()), RunDemo(p.get()), 0.0f);
}

TEST(Device, DeviceNobodyProvidesIsNotFound) {
  Config config(testing::DemoModelDir());
  config.SetDevice("nodev:1");
  testing::ExpectError(
      [&] { CreatePredictor(config); }, ErrorCode::kNotFound,
      {"No device context is registered for place nodev:1", "plugin"});
}

}  // namespace
}  // namespace paddle_lite
