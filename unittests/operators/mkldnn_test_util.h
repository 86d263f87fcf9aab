// Helpers of the *_mkldnn_test.cc files: they run an op through every
// kernel registered for it (OpTester::RunAllKernels, the PLAIN kernel as
// reference) on the shapes and attributes the oneDNN kernels treat
// specially, and check that an MKLDNN kernel is there to be compared.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "framework/executor.h"
#include "framework/kernel_registry.h"
#include "framework/program_builder.h"
#include "platform/cpu_isa.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

using MkldnnAttrs = std::vector<std::pair<std::string, framework::Attribute>>;

/// The tolerance of oneDNN against PLAIN: both accumulate in float, in
/// different orders (and oneDNN's exp/tanh are polynomial approximations).
constexpr double kMkldnnTolerance = 1e-4;

/// Fails unless `op` has a float32 MKLDNN kernel on the CPU, so a test of
/// it cannot pass by comparing PLAIN with itself.
inline void ExpectMkldnnKernel(const std::string& op) {
  framework::OpKernelType key;
  key.data_type = framework::DataType::kFloat32;
  key.place = platform::CPUPlace{};
  key.library = framework::LibraryType::MKLDNN();
  EXPECT_NE(framework::KernelRegistry::Instance().Find(op, key), nullptr)
      << op << " has no MKLDNN kernel";
}

/// Adds `attrs` to `t`, then runs every kernel of the op against PLAIN.
inline void RunAllKernelsWith(OpTester* t, const MkldnnAttrs& attrs) {
  for (const auto& a : attrs) t->Attr(a.first, a.second);
  t->RunAllKernels(kMkldnnTolerance, kMkldnnTolerance);
}

/// A product op (fc, mul, matmul, matmul_v2) whose inputs and outputs
/// `bind` gives, through RunAllKernelsWith without and with batch
/// invariance (which computes row by row: the same values).
inline void RunProductKernels(const std::string& op,
                              const std::function<void(OpTester*)>& bind,
                              const MkldnnAttrs& attrs) {
  for (bool invariant : {false, true}) {
    SCOPED_TRACE(invariant ? "batch invariant" : "");
    OpTester t(op);
    bind(&t);
    t.BatchInvariant(invariant);
    RunAllKernelsWith(&t, attrs);
  }
}

/// The same for an op of inputs X and Y and output Out.
inline void RunProductKernels(const std::string& op,
                              const framework::Tensor& x,
                              const framework::Tensor& y,
                              const MkldnnAttrs& attrs) {
  RunProductKernels(
      op, [&](OpTester* t) { t->Input("X", x).Input("Y", y).Output("Out"); },
      attrs);
}

/// An op with input X and output Out (activations, pool2d, softmax).
inline void CheckUnaryAllKernels(const std::string& op,
                                 const framework::Tensor& x,
                                 const MkldnnAttrs& attrs = {}) {
  SCOPED_TRACE(op + " X " + framework::DimsToString(x.dims()));
  OpTester t(op);
  t.Input("X", x).Output("Out");
  RunAllKernelsWith(&t, attrs);
}

/// Runs a program with one input in a child scope of the parameters, like
/// a predictor (two threads), preferring the kernels of `library`.
struct Runner {
  Runner(const framework::ProgramDesc& p,
         const framework::Scope& params,
         framework::LibraryType library)
      : pool(platform::DeviceContextOptions::WithThreads(2)),
        executor(p,
                 framework::KernelPreference{platform::CPUPlace{}, {library}},
                 &pool),
        scope(params.NewScope()) {
    executor.Prepare(0);
  }
  std::vector<framework::Tensor> Run(const framework::Tensor& input) {
    auto* feed = scope.Var("feed")->GetMutable<framework::TensorList>();
    feed->assign(1, input);
    executor.Run(0, &scope);
    const auto& fetched = scope.FindVar("fetch")->Get<framework::TensorList>();
    std::vector<framework::Tensor> out;
    for (const auto& t : fetched) {
      framework::Tensor copy;
      framework::TensorCopy(t, platform::CPUPlace{}, &copy);
      out.push_back(copy);
    }
    return out;
  }
  platform::DeviceContextPool pool;
  framework::Executor executor;
  framework::Scope& scope;
};

/// A network's stem as our loops run it, for graphs whose ops must read
/// channel-last activations: a 3x3 convolution (padding 1) of the
/// 3-channel input `x` to 8 channels ("stem", weights "w0"), then a 1x1
/// one to `channels` (`output`, weights "w1"), whose output our 1x1 loops
/// write channel-last.
inline void AddChannelLastStem(framework::ProgramBuilder* b,
                               const std::string& x,
                               int64_t channels,
                               const std::string& output) {
  auto w0 = b->AddParameter("w0", RandomTensor<float>({8, 3, 3, 3}, -1, 1, 6));
  auto w1 =
      b->AddParameter("w1", RandomTensor<float>({channels, 8, 1, 1}, -1, 1, 7));
  auto stem = b->AddVar("stem");
  b->AddVar(output);
  b->AddOp("conv2d", {{"Input", {x}}, {"Filter", {w0}}}, {{"Output", {stem}}},
           {{"paddings", std::vector<int>{1, 1}}});
  b->AddOp("conv2d", {{"Input", {stem}}, {"Filter", {w1}}},
           {{"Output", {output}}});
}

/// Expects each of `names` in `runner`'s scope in a layout of its own, as
/// the MKLDNN kernels' channel-last paths write them (the PLAIN kernels
/// would leave them plain), where our loops run (AVX2 and up).
inline void ExpectOwnLayouts(const Runner& runner,
                             const std::vector<std::string>& names) {
  if (platform::WidestCpuIsa() == platform::CpuIsa::kBaseline) return;
  for (const std::string& name : names) {
    EXPECT_NE(
        runner.scope.FindVar(name)->Get<framework::Tensor>().opaque_layout(),
        nullptr)
        << name;
  }
}

/// A stream of input sizes for graphs that pool by 2 once (a feature
/// pyramid's two levels): even sizes, some seen before, a 1-pixel coarse
/// level, batches.
inline std::vector<framework::DDim> PyramidStreamSizes() {
  return {{1, 3, 24, 40}, {2, 3, 6, 10}, {1, 3, 24, 40},
          {1, 3, 2, 2},   {3, 3, 14, 8}, {2, 3, 6, 10}};
}

/// Runs `program` (one input) on random inputs of `dims`, in that order,
/// through one executor preferring MKLDNN kernels and one PLAIN, as a
/// predictor fed a stream of shapes (plans, kept calls and new shapes
/// alike), and checks every output against PLAIN's, and that the MKLDNN
/// run left each of `own_layouts` in a layout of its own
/// (ExpectOwnLayouts).
inline void ExpectMkldnnMatchesPlainOverStream(
    const framework::ProgramDesc& program,
    const framework::Scope& params,
    const std::vector<framework::DDim>& dims,
    const std::vector<std::string>& own_layouts = {}) {
  Runner plain(program, params, framework::LibraryType::Plain());
  Runner mkldnn(program, params, framework::LibraryType::MKLDNN());
  uint32_t seed = 1;
  for (const auto& d : dims) {
    SCOPED_TRACE("input " + framework::DimsToString(d));
    const auto input = RandomTensor<float>(d, -1, 1, ++seed);
    const auto expected = plain.Run(input);
    const auto got = mkldnn.Run(input);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectTensorNear(got[i], expected[i], kMkldnnTolerance, kMkldnnTolerance);
    }
    ExpectOwnLayouts(mkldnn, own_layouts);
  }
}

}  // namespace testing
}  // namespace paddle_lite
