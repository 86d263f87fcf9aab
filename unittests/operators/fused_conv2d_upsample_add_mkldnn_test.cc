// fused_conv2d_upsample_add through its MKLDNN kernel: in a graph whose
// convolutions and pooling write channel-last layouts (a stem, then 1x1
// convolutions and pooling on our own loops: a feature pyramid's levels),
// so that the kernel gathers the residual rows itself and runs our 1x1
// loops, writing a channel-last output for the next convolution; output
// channels past a 64-channel panel, with and without bias and activation,
// over a stream of sizes (some seen before, batches) against PLAIN.
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(FusedConv2dUpsampleAddMkldnn, HasKernel) {
  ExpectMkldnnKernel("fused_conv2d_upsample_add");
}

TEST(FusedConv2dUpsampleAddMkldnn, PyramidStepInAGraphOverAStreamOfSizes) {
  for (bool bias : {false, true}) {
    SCOPED_TRACE(bias ? "bias, relu" : "no bias");
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3, -1, -1});
    const std::string fine = "fine";  // [N, 24, H, W]
    AddChannelLastStem(&b, x, 24, fine);
    auto w2 =
        b.AddParameter("w2", RandomTensor<float>({72, 24, 1, 1}, -1, 1, 8));
    auto w3 =
        b.AddParameter("w3", RandomTensor<float>({72, 24, 1, 1}, -1, 1, 9));
    auto w4 =
        b.AddParameter("w4", RandomTensor<float>({4, 72, 1, 1}, -1, 1, 5));
    auto b3 = b.AddParameter("b3", RandomTensor<float>({72}, -1, 1, 4));
    auto coarse = b.AddVar("coarse");  // [N, 24, H / 2, W / 2]
    auto narrow = b.AddVar("narrow");  // [N, 72, H / 2, W / 2]
    auto merged = b.AddVar("merged");  // conv(fine) + narrow upsampled
    auto y = b.AddVar("y");
    b.AddOp("pool2d", {{"X", {fine}}}, {{"Out", {coarse}}},
            {{"pooling_type", std::string("max")},
             {"ksize", std::vector<int>{2, 2}},
             {"strides", std::vector<int>{2, 2}}});
    b.AddOp("conv2d", {{"Input", {coarse}}, {"Filter", {w2}}},
            {{"Output", {narrow}}});
    framework::VarNameMap inputs = {
        {"Input", {fine}}, {"Filter", {w3}}, {"ResidualData", {narrow}}};
    if (bias) inputs.push_back({"Bias", {b3}});
    b.AddOp("fused_conv2d_upsample_add", inputs, {{"Output", {merged}}},
            {{"scale_h", 2.f},
             {"scale_w", 2.f},
             {"fuse_activation", std::string(bias ? "relu" : "")}});
    b.AddOp("conv2d", {{"Input", {merged}}, {"Filter", {w4}}},
            {{"Output", {y}}});
    b.AddOutput(y);
    // Where our loops run (AVX2 and up) the sum is the kernel's own, in a
    // channel-last layout (the PLAIN kernel would leave it plain).
    ExpectMkldnnMatchesPlainOverStream(b.Build(), b.parameters(),
                                       PyramidStreamSizes(), {merged});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
